import { questionStatusLabel, sentimentLabel } from "./sentiment.js";
import type { ThreadDigest } from "./thread-digest.js";
import { formatNumber } from "./without-icu.js";

/** The facts of a card that a reader compares between two versions of it. */
export type CardFacts = Pick<
  ThreadDigest,
  | "title"
  | "summary"
  | "sentiment"
  | "isQuestionLed"
  | "questionResponseStatus"
  | "messageCount"
  | "participantCount"
>;

/**
 * Triage of one thread in its workspace, as every card of it and Home show it; `channelId`: the
 * channel whose card was pressed (absent for a press on a watch DM, or state from before).
 */
export interface TriageState {
  handled?: { by: string; atMs: number; channelId?: string };
  assignee?: { user: string; by: string; atMs: number; channelId?: string };
  /** How many people follow the thread (DMs on each re-enrichment). */
  followers: number;
}

export const NO_TRIAGE: TriageState = { followers: 0 };

const signed = (n: number, one: string, many: string) =>
  `${n > 0 ? "+" : "−"}${formatNumber(Math.abs(n))} ${Math.abs(n) === 1 ? one : many}`;

const squash = (s: string | undefined) => (s ?? "").replace(/\s+/g, " ").trim();

/**
 * What changed between the card a channel shows and the new state of its thread, as short
 * parts ("Sentiment Negative → Positive", "Unanswered → Answered", "+3 messages", "summary
 * rewritten"). Labels are the readers' words (sentimentLabel, questionStatusLabel), not the
 * service's raw values; values not known on either side are not reported as a change, so a
 * sentiment arriving late reads as the card filling in, not as news. Untrusted text: labels
 * echo unknown values, so callers escape the parts.
 */
export function describeChange(prev: CardFacts, next: CardFacts): string[] {
  const parts: string[] = [];
  if (prev.sentiment !== undefined && next.sentiment !== undefined) {
    const a = sentimentLabel(prev.sentiment).label;
    const b = sentimentLabel(next.sentiment).label;
    if (a !== b) parts.push(`Sentiment ${a} → ${b}`);
  }
  if (prev.questionResponseStatus !== undefined && next.questionResponseStatus !== undefined) {
    const a = questionStatusLabel(prev.questionResponseStatus).label;
    const b = questionStatusLabel(next.questionResponseStatus).label;
    if (a !== b) parts.push(`${a} → ${b}`);
  }
  if (prev.messageCount !== undefined && next.messageCount !== undefined) {
    const d = next.messageCount - prev.messageCount;
    if (d !== 0) parts.push(signed(d, "message", "messages"));
  }
  if (prev.participantCount !== undefined && next.participantCount !== undefined) {
    const d = next.participantCount - prev.participantCount;
    if (d !== 0) parts.push(signed(d, "participant", "participants"));
  }
  if (squash(prev.title) && squash(next.title) && squash(prev.title) !== squash(next.title)) {
    parts.push("title changed");
  }
  if (squash(prev.summary) && squash(next.summary) && squash(prev.summary) !== squash(next.summary)) {
    parts.push("summary rewritten");
  }
  return parts;
}

/**
 * The "what changed" parts a re-enrichment edit shows: the change itself, led by "changed
 * since marked handled" when the thread was marked handled before this enrichment (a handled
 * thread that moves again deserves a second look).
 */
export function changeSinceCard(
  prev: CardFacts,
  next: CardFacts,
  o: { triage: TriageState; enrichedAtMs: number },
): string[] {
  const parts = describeChange(prev, next);
  if (parts.length > 0 && o.triage.handled && o.triage.handled.atMs <= o.enrichedAtMs) {
    return ["changed since marked handled", ...parts];
  }
  return parts;
}

/** The facts of a digest, and nothing else (what is stored with the message ref). */
export function cardFactsOf(d: ThreadDigest): CardFacts {
  return {
    title: d.title,
    summary: d.summary,
    sentiment: d.sentiment,
    isQuestionLed: d.isQuestionLed,
    questionResponseStatus: d.questionResponseStatus,
    messageCount: d.messageCount,
    participantCount: d.participantCount,
  };
}
