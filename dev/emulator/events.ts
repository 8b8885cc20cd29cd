/*
 * Webhook envelopes exactly as spec 6.2-6.4 describe them. Pure builders.
 */
import type { EmulatedGroup, EmulatedMessage, EmulatedThread } from "./types.js";

export type EmulatorWebhookType = "chatthread-crud" | "chatmessage-crud";
export type ActionType = "created" | "updated";

export type ThreadEventPayload = {
  communityId: string;
  timestamp: string;
  threadId: string;
  groupId: string;
  groupName: string;
  title: string;
  summary: string;
  participantCount: number;
  messageCount: number;
};

export type MessageEventPayload = {
  communityId: string;
  timestamp: string;
  messageId: string;
  threadId: string;
  groupId: string;
  groupName: string;
  senderId: string;
  senderName: string;
  text: string;
  messageTimestamp: string;
};

export type WebhookEnvelope =
  | { webhookType: "chatthread-crud"; actionType: ActionType; payload: ThreadEventPayload }
  | { webhookType: "chatmessage-crud"; actionType: ActionType; payload: MessageEventPayload };

/** Any envelope, including ones a test builds by hand (e.g. an unknown type or a bad payload). */
export interface LooseEnvelope {
  webhookType: string;
  actionType: string;
  payload: Record<string, unknown>;
}

export function threadEvent(
  actionType: ActionType,
  group: EmulatedGroup,
  thread: EmulatedThread,
  at: Date,
): WebhookEnvelope {
  return {
    webhookType: "chatthread-crud",
    actionType,
    payload: {
      communityId: group.community,
      timestamp: at.toISOString(),
      threadId: thread.id,
      groupId: group._id,
      groupName: group.name,
      title: thread.title,
      summary: thread.summary,
      participantCount: thread.participantCount,
      messageCount: thread.messageCount,
    },
  };
}

export function messageEvent(
  actionType: ActionType,
  group: EmulatedGroup,
  message: EmulatedMessage,
  at: Date,
): WebhookEnvelope {
  return {
    webhookType: "chatmessage-crud",
    actionType,
    payload: {
      communityId: group.community,
      timestamp: at.toISOString(),
      messageId: message.id,
      threadId: message.threadId,
      groupId: group._id,
      groupName: group.name,
      senderId: message.authorInfo.id,
      senderName: message.authorInfo.fullName,
      text: message.messageText,
      messageTimestamp: message.messageDate,
    },
  };
}
