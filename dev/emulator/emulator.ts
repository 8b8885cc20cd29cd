import type { FaultInjector } from "./faults.js";
import type { RequestLog } from "./request-log.js";
import type { EmulatorStore } from "./store.js";
import type { EmulatedMessage, EmulatedThread } from "./types.js";
import type { DeliveryResult, WebhookSender } from "./webhook-sender.js";

/** A running emulator: what tests and the demo drive (server.ts starts one). */
export interface Emulator {
  /** "http://127.0.0.1:PORT", no trailing slash; the API is under /api/v1/. */
  baseUrl: string;
  /** Granted every community. */
  apiKey: string;
  /** Granted only SEED.communities.primary. */
  limitedKey: string;
  store: EmulatorStore;
  faults: FaultInjector;
  requests: RequestLog;
  webhooks: WebhookSender;
  /** Grants another key (e.g. to test a key whose grant changes): "all" or a list of community ids. */
  grantKey(key: string, communities: "all" | string[]): void;
  /** Revokes a key, as the dashboard would: every later request with it answers 401. */
  revokeKey(key: string): void;
  /** Updates a thread and sends chatthread-crud (`updated` unless told otherwise). */
  enrichThread(
    groupId: string,
    threadId: string,
    changes: Partial<EmulatedThread>,
    action?: "created" | "updated",
  ): Promise<DeliveryResult[]>;
  /** Adds a thread and sends chatthread-crud `created`. */
  createThread(
    groupId: string,
    partial?: Partial<EmulatedThread>,
  ): Promise<{ thread: EmulatedThread; deliveries: DeliveryResult[] }>;
  /** Adds a message and sends chatmessage-crud `created`. */
  postMessage(
    groupId: string,
    threadId: string,
    partial?: Partial<EmulatedMessage>,
  ): Promise<{ message: EmulatedMessage; deliveries: DeliveryResult[] }>;
  close(): Promise<void>;
}
