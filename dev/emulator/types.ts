/*
 * The emulator's data model: the resources of spec section 2 as the emulator stores them.
 * Wire views (what the REST API answers) are built from these in `views.ts`.
 */

/** Sentiment labels the emulator uses (the real set is not shown). */
export const SENTIMENTS = ["positive", "neutral", "negative", "mixed"] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

/** questionResponseStatus values the emulator uses (the real set is not shown). */
export const QUESTION_RESPONSE_STATUSES = ["answered", "unanswered", "pending"] as const;
export type QuestionResponseStatus = (typeof QUESTION_RESPONSE_STATUSES)[number];

export type Platform = "telegram" | "whatsapp" | "discord";

export interface EmulatedCommunity {
  _id: string;
  name: string;
  description: string;
  CreationDate: string;
}

export interface EmulatedGroup {
  _id: string;
  name: string;
  community: string;
  description: string;
  isDirectMessageGroup: boolean;
  /** Extra detail fields (the detail shape is not shown; these are the emulator's choice). */
  platform: Platform;
  CreationDate: string;
  memberCount: number;
}

export interface EmulatedAuthor {
  id: string;
  handle: string;
  fullName: string;
}

export interface EmulatedReaction {
  emoji: string;
  count: number;
}

/** The Thread fields of spec 2.3, plus the keyword field and the participant count. */
export interface EmulatedThread {
  id: string;
  title: string;
  firstMessageDate: string;
  lastMessageDate: string;
  messageCount: number;
  summary: string;
  /** One of SENTIMENTS in generated data; any text may be set to test tolerant clients. */
  sentiment: string;
  isQuestionLed: boolean;
  /** One of QUESTION_RESPONSE_STATUSES in generated data. */
  questionResponseStatus: string;
  keywords: string[];
  participantCount: number;
}

/** A message of spec 2.4; `threadId` is the store's link (sent on the wire as chatThreadSummary). */
export interface EmulatedMessage {
  id: string;
  threadId: string;
  messageDate: string;
  messageText: string;
  isSystemMessage: boolean;
  isBotMessage: boolean;
  authorInfo: EmulatedAuthor;
  reactions: EmulatedReaction[];
  quotedMessageText?: string;
  quotedMessageAuthor?: string;
}

export type Grant = "all" | ReadonlySet<string>;

export interface RecordedRequest {
  method: string;
  /** The path without the query string, e.g. "/api/v1/community". */
  path: string;
  /** "v1" for /api/v1/..., null for the unversioned /api/... (and for paths outside /api). */
  version: string | null;
  query: Record<string, string>;
  /** The status answered; null while unanswered, or when the socket was destroyed (fault `down`/`hang`). */
  status: number | null;
  at: Date;
  /** Which key was presented; never the key itself. */
  key: "full" | "limited" | "other" | "unknown" | "none";
}
