import * as z from "zod";

/*
 * The Insight Service's wire format (../shared/spec/insight-service-interface.md).
 *
 * Tolerance policy, in one place: identifiers that the app cannot work without are required;
 * every other known field is validated but a wrong type degrades to "absent" (`.catch`)
 * instead of rejecting the item; unknown fields pass through (`looseObject`). Values the
 * interface does not enumerate (sentiment, questionResponseStatus) are kept as text.
 */

const optString = z.string().optional().catch(undefined);
const optNullableString = z.string().nullable().optional().catch(undefined);
const optBool = z.boolean().optional().catch(undefined);
const optCount = z.number().int().nonnegative().optional().catch(undefined);
const id = z.union([z.string().min(1), z.number().transform(String)]);

export const RANGES = ["last7Days", "last30Days", "last3Months", "last6Months", "allTime"] as const;
export type Range = (typeof RANGES)[number];
export const SORTS = ["asc", "desc"] as const;
export type Sort = (typeof SORTS)[number];
export const MAX_LIMIT = 100;

export const communitySchema = z.looseObject({
  _id: id,
  name: z.string().catch(""),
  description: optString,
  CreationDate: optString,
});
export type Community = z.infer<typeof communitySchema>;

export const chatGroupSchema = z.looseObject({
  _id: id,
  name: z.string().catch(""),
  community: optString,
  description: optString,
  isDirectMessageGroup: optBool,
});
export type ChatGroup = z.infer<typeof chatGroupSchema>;

/** The detail response's shape is not shown: only the identifier is insisted upon. */
export const chatGroupDetailSchema = chatGroupSchema.extend({ name: optString });
export type ChatGroupDetail = z.infer<typeof chatGroupDetailSchema>;

export const threadSchema = z.looseObject({
  id: id,
  title: z.string().catch(""),
  firstMessageDate: optString,
  lastMessageDate: optString,
  messageCount: optCount,
  summary: optNullableString,
  sentiment: optNullableString,
  isQuestionLed: optBool,
  questionResponseStatus: optNullableString,
});
export type Thread = z.infer<typeof threadSchema>;

export const messageSchema = z.looseObject({
  id: id,
  messageDate: optString,
  messageText: z.string().nullable().catch("").default(""),
  isSystemMessage: optBool,
  isBotMessage: optBool,
  authorInfo: z
    .looseObject({ id: optString, handle: optNullableString, fullName: optNullableString })
    .optional()
    .catch(undefined),
  reactions: z
    .array(z.looseObject({ emoji: z.string(), count: z.number().int().nonnegative() }))
    .optional()
    .catch(undefined),
  chatThreadSummary: z.looseObject({ id: optString, title: optString }).optional().catch(undefined),
  quotedMessageText: optNullableString,
  quotedMessageAuthor: optNullableString,
});
export type Message = z.infer<typeof messageSchema>;

export const paginationSchema = z.looseObject({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});
export type Pagination = z.infer<typeof paginationSchema>;

/**
 * Items that fail their schema are dropped and counted, not fatal: one malformed thread
 * must not hide the other 99 of its page.
 */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    data: z.array(z.unknown()).transform((raw) => {
      const items: z.infer<T>[] = [];
      let dropped = 0;
      for (const r of raw) {
        const p = item.safeParse(r);
        if (p.success) items.push(p.data);
        else dropped++;
      }
      return { items, dropped };
    }),
    pagination: paginationSchema.optional().catch(undefined),
  });
}

export interface Page<T> {
  data: T[];
  /** Absent when the service sent none or a malformed one. */
  pagination: Pagination | undefined;
  /** Items of this page that did not match their schema. */
  dropped: number;
}

// --- Keywords -------------------------------------------------------------------------------

/**
 * The field that carries keywords is not shown. `keywords` is tried first, then the names
 * such services commonly use. The decision lives here and nowhere else.
 */
export const KEYWORD_FIELDS = ["keywords", "keyWords", "keyPhrases", "keyphrases", "tags", "topics"] as const;

function keywordText(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() || undefined;
  if (v && typeof v === "object") {
    for (const k of ["keyword", "text", "name", "value", "label", "term"]) {
      const s = (v as Record<string, unknown>)[k];
      if (typeof s === "string" && s.trim()) return s.trim();
    }
  }
  return undefined;
}

/** Keywords of a thread, from whichever field carries them: deduplicated, order kept. */
export function readKeywords(thread: Record<string, unknown>): string[] {
  for (const field of KEYWORD_FIELDS) {
    const raw = thread[field];
    if (raw === undefined || raw === null) continue;
    const list = typeof raw === "string" ? raw.split(",") : Array.isArray(raw) ? raw : [];
    const out: string[] = [];
    const lower = new Set<string>();
    for (const item of list) {
      const t = keywordText(item);
      if (t && !lower.has(t.toLowerCase())) {
        lower.add(t.toLowerCase());
        out.push(t);
      }
    }
    if (out.length > 0) return out;
  }
  return [];
}

// --- Search ---------------------------------------------------------------------------------

export interface SearchThreadHit {
  kind: "thread";
  id: string;
  title: string;
  summary: string | undefined;
  score: number | undefined;
  raw: Record<string, unknown>;
}
export interface SearchMessageHit {
  kind: "message";
  id: string;
  text: string;
  threadId: string | undefined;
  threadTitle: string | undefined;
  author: string | undefined;
  date: string | undefined;
  score: number | undefined;
  raw: Record<string, unknown>;
}
export interface SearchResults {
  threads: SearchThreadHit[];
  messages: SearchMessageHit[];
}

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const str = (v: unknown): string | undefined =>
  typeof v === "string" ? v : typeof v === "number" ? String(v) : undefined;
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function toHit(
  item: unknown,
  hint: "thread" | "message" | undefined,
): SearchThreadHit | SearchMessageHit | undefined {
  const r = asRecord(item);
  if (!r) return undefined;
  // Some search APIs wrap the document: { score, document | item | thread | message: {...} }.
  const inner = asRecord(r.document) ?? asRecord(r.item) ?? asRecord(r.thread) ?? asRecord(r.message);
  const doc = inner ? { ...inner, score: r.score ?? inner.score } : r;
  const type = str(doc.type ?? doc.kind ?? r.type)?.toLowerCase();
  const looksMessage =
    type?.includes("message") ||
    (!type?.includes("thread") && (hint === "message" || ("messageText" in doc && !("summary" in doc))));
  const identifier = str(doc.id ?? doc._id ?? doc.messageId ?? doc.threadId);
  if (!identifier) return undefined;
  const score = num(doc.score ?? doc.similarity ?? doc.relevance);
  if (looksMessage) {
    const author = asRecord(doc.authorInfo);
    const thread = asRecord(doc.chatThreadSummary);
    return {
      kind: "message",
      id: identifier,
      text: str(doc.messageText ?? doc.text ?? doc.content) ?? "",
      threadId: str(thread?.id ?? doc.threadId ?? doc.chatThreadId),
      threadTitle: str(thread?.title ?? doc.threadTitle),
      author: str(author?.fullName ?? author?.handle ?? doc.senderName ?? doc.author),
      date: str(doc.messageDate ?? doc.date ?? doc.timestamp),
      score,
      raw: doc,
    };
  }
  return {
    kind: "thread",
    id: identifier,
    title: str(doc.title ?? doc.name) ?? "",
    summary: str(doc.summary ?? doc.snippet ?? doc.text),
    score,
    raw: doc,
  };
}

/**
 * The search response's shape is not shown. Accepted: a bare array; `{ data | results | hits |
 * items: [...] }`; `{ threads: [...], messages: [...] }` (also nested under `data`). Items are
 * classified by a `type` field, else by their fields. Anything else yields no hits.
 */
export function parseSearchResults(body: unknown): SearchResults {
  const out: SearchResults = { threads: [], messages: [] };
  const push = (hit: SearchThreadHit | SearchMessageHit | undefined) => {
    if (hit?.kind === "thread") out.threads.push(hit);
    else if (hit?.kind === "message") out.messages.push(hit);
  };
  const visit = (v: unknown, depth: number) => {
    if (Array.isArray(v)) {
      for (const item of v) push(toHit(item, undefined));
      return;
    }
    const r = asRecord(v);
    if (!r || depth > 2) return;
    const threads = r.threads ?? r.chatThreads ?? r.threadResults;
    const messages = r.messages ?? r.chatMessages ?? r.messageResults;
    if (Array.isArray(threads) || Array.isArray(messages)) {
      if (Array.isArray(threads)) for (const t of threads) push(toHit(t, "thread"));
      if (Array.isArray(messages)) for (const m of messages) push(toHit(m, "message"));
      return;
    }
    for (const key of ["data", "results", "hits", "items"]) {
      if (key in r) return visit(r[key], depth + 1);
    }
  };
  visit(body, 0);
  return out;
}

// --- Webhooks -------------------------------------------------------------------------------

export const WEBHOOK_TYPES = ["chatthread-crud", "chatmessage-crud"] as const;
export type WebhookType = (typeof WEBHOOK_TYPES)[number];
export const ACTION_TYPES = ["created", "updated"] as const;

const isoTimestamp = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: "not an ISO 8601 time" });

const basePayload = {
  communityId: z.string().min(1),
  timestamp: isoTimestamp,
};

export const threadPayloadSchema = z.looseObject({
  ...basePayload,
  threadId: z.string().min(1),
  groupId: z.string().min(1),
  groupName: optString,
  title: optString,
  summary: optNullableString,
  participantCount: optCount,
  messageCount: optCount,
});
export type ThreadPayload = z.infer<typeof threadPayloadSchema>;

export const messagePayloadSchema = z.looseObject({
  ...basePayload,
  messageId: z.string().min(1),
  groupId: z.string().min(1),
  threadId: optString,
  groupName: optString,
  senderId: optString,
  senderName: optString,
  text: optNullableString,
  messageTimestamp: optString,
});
export type MessagePayload = z.infer<typeof messagePayloadSchema>;

export const threadEventSchema = z.looseObject({
  webhookType: z.literal("chatthread-crud"),
  actionType: z.enum(ACTION_TYPES),
  payload: threadPayloadSchema,
});
export type ThreadEvent = z.infer<typeof threadEventSchema>;

export const messageEventSchema = z.looseObject({
  webhookType: z.literal("chatmessage-crud"),
  actionType: z.enum(ACTION_TYPES),
  payload: messagePayloadSchema,
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

export const webhookEventSchema = z.discriminatedUnion("webhookType", [
  threadEventSchema,
  messageEventSchema,
]);
export type WebhookEvent = z.infer<typeof webhookEventSchema>;

/** The common envelope only, to tell an unknown type from a malformed known one. */
export const webhookEnvelopeSchema = z.looseObject({
  webhookType: z.string().min(1),
  actionType: z.string(),
  payload: z.looseObject({ communityId: z.string(), timestamp: z.string() }),
});
