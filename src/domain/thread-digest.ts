import { readKeywords, type Thread, type ThreadEvent } from "../insight/schemas.js";

/** Everything a digest message shows about one enriched thread. Pure data, untrusted text. */
export interface ThreadDigest {
  threadId: string;
  groupId: string;
  /** "" when the payload did not name the group. */
  groupName: string;
  communityId: string;
  /** "" when neither the payload nor the listing had one. */
  title: string;
  summary: string | undefined;
  /** The service's raw value; undefined until the listing brings it (docs/using.md rule 3). */
  sentiment: string | undefined;
  keywords: string[];
  messageCount: number | undefined;
  participantCount: number | undefined;
  isQuestionLed: boolean | undefined;
  questionResponseStatus: string | undefined;
  firstMessageDate: string | undefined;
  lastMessageDate: string | undefined;
  /** The webhook payload's timestamp: orders re-enrichments (docs/using.md rule 2). */
  enrichedAt: string;
  action: "created" | "updated";
}

const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === "boolean" ? v : undefined);
const count = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;

/**
 * Joins a `chatthread-crud` event with the thread's listing item (undefined while the
 * listing has not been fetched or did not contain the thread).
 *
 * The payload is the enrichment that triggered the event, so its title and summary win;
 * the listing fills in what the payload lacks (sentiment, keywords, question fields,
 * dates). Counts come from the listing when it has them: it is what `threads`, the weekly
 * summary and the counts edits read, so every view shows the same numbers (rule 10), and it
 * also counts messages that arrived after the enrichment. Should a payload ever carry those too (unknown fields pass through),
 * they are used first. A listing item for another thread is ignored rather than shown.
 */
export function buildThreadDigest(event: ThreadEvent, listing: Thread | undefined): ThreadDigest {
  const p = event.payload;
  const l = listing && listing.id === p.threadId ? listing : undefined;
  const payloadKeywords = readKeywords(p);
  return {
    threadId: p.threadId,
    groupId: p.groupId,
    groupName: text(p.groupName) ?? "",
    communityId: p.communityId,
    title: text(p.title) ?? text(l?.title) ?? "",
    summary: text(p.summary) ?? text(l?.summary),
    sentiment: text(p.sentiment) ?? text(l?.sentiment),
    keywords: payloadKeywords.length > 0 ? payloadKeywords : l ? readKeywords(l) : [],
    messageCount: count(l?.messageCount) ?? p.messageCount,
    participantCount: count(l?.participantCount) ?? p.participantCount,
    isQuestionLed: bool(p.isQuestionLed) ?? l?.isQuestionLed,
    questionResponseStatus: text(p.questionResponseStatus) ?? text(l?.questionResponseStatus),
    firstMessageDate: text(p.firstMessageDate) ?? text(l?.firstMessageDate),
    lastMessageDate: text(p.lastMessageDate) ?? text(l?.lastMessageDate),
    enrichedAt: p.timestamp,
    action: event.actionType,
  };
}

/** Whitespace collapsed and a trailing ellipsis dropped, so a reflowed or shortened copy still matches. */
const comparable = (s: string) =>
  s
    .replace(/\s+/g, " ")
    .replace(/(?:…|\.\.\.)$/, "")
    .trim();

/**
 * Whether the listing still shows an earlier enrichment than the event: both carry a summary
 * and they differ (one may be a shortened copy of the other). Its sentiment, keywords and
 * question fields are then the earlier enrichment's. No summary on either side: no evidence.
 */
export function listingLagsBehind(event: ThreadEvent, listing: Thread): boolean {
  const fromEvent = text(event.payload.summary);
  const fromListing = listing.id === event.payload.threadId ? text(listing.summary) : undefined;
  if (!fromEvent || !fromListing) return false;
  const a = comparable(fromEvent);
  const b = comparable(fromListing);
  return !(a.startsWith(b) || b.startsWith(a));
}
