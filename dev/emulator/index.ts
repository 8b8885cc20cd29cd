export { startEmulator, SEED, type Emulator, type EmulatorOptions } from "./server.js";
export { EmulatorStore, UnknownResourceError } from "./store.js";
export { FaultInjector, type FaultSpec } from "./faults.js";
export { RequestLog } from "./request-log.js";
export {
  WebhookSender,
  type DeliveryRecord,
  type DeliveryResult,
  type WebhookInfo,
  type WebhookRegistration,
} from "./webhook-sender.js";
export {
  messageEvent,
  threadEvent,
  type ActionType,
  type EmulatorWebhookType,
  type LooseEnvelope,
  type MessageEventPayload,
  type ThreadEventPayload,
  type WebhookEnvelope,
} from "./events.js";
export {
  QUESTION_RESPONSE_STATUSES,
  SENTIMENTS,
  type EmulatedAuthor,
  type EmulatedCommunity,
  type EmulatedGroup,
  type EmulatedMessage,
  type EmulatedReaction,
  type EmulatedThread,
  type QuestionResponseStatus,
  type RecordedRequest,
  type Sentiment,
} from "./types.js";
