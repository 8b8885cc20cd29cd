import { CronExpressionParser } from "cron-parser";
import { questionStatusLabel } from "./sentiment.js";
import type { DigestEvery } from "./subscription.js";
import type { ThreadDigest } from "./thread-digest.js";
import { byCodeUnit } from "./without-icu.js";

/**
 * One thread waiting in a channel's pending digest: its latest state, and whether the batch
 * first saw it as a new thread (a thread created then re-enriched in one period is still new).
 */
export interface PendingEntry {
  digest: ThreadDigest;
  /** `digestVersion(enrichedAtMs, hasSentiment)`: the newer state wins, a known sentiment beats none. */
  version: number;
  isNew: boolean;
  /** When the batch first saw this thread. */
  firstSeenMs: number;
}

/** Same ordering as the card path (store/message-refs `digestVersion`): newer, then with sentiment. */
export const entryVersion = (enrichedAtMs: number, hasSentiment: boolean) =>
  enrichedAtMs * 2 + (hasSentiment ? 1 : 0);

/**
 * Latest state wins: an incoming state older than (or the same as) the stored one changes
 * nothing; a newer one replaces it but keeps when the batch first saw the thread and whether
 * it was new then. Undefined: nothing pending. Pure, so that the Redis script applying it can
 * be checked against it.
 */
export function mergePending(
  stored: PendingEntry | undefined,
  incoming: PendingEntry,
  /** The version an earlier digest of this channel showed, if any. */
  shownVersion?: number,
): PendingEntry | undefined {
  // Already shown in this state (a reconciler pass or a repeated delivery after the post):
  // nothing changed for this channel, so nothing is pending.
  if (!stored && shownVersion !== undefined && incoming.version <= shownVersion) return undefined;
  // A thread an earlier digest showed comes back as changed, whatever its event said.
  if (!stored) return shownVersion === undefined ? incoming : { ...incoming, isNew: false };
  if (incoming.version <= stored.version) return stored;
  return { ...incoming, isNew: stored.isNew, firstSeenMs: stored.firstSeenMs };
}

export type BatchSection = "new" | "changed" | "handled";

/**
 * Which part of the batched digest a thread goes in. "Handled" (said "Answered in the chat")
 * is a question the channel saw open and the community has answered since (nothing left to
 * do); a thread new in this period stays under new threads, answered or not: the channel
 * never saw it open. The others are new or changed threads.
 */
export function sectionOf(e: PendingEntry): BatchSection {
  if (e.isNew) return "new";
  const q = questionStatusLabel(e.digest.questionResponseStatus).status;
  if (e.digest.isQuestionLed !== false && q === "answered") return "handled";
  return "changed";
}

export interface DigestBatch {
  new: PendingEntry[];
  changed: PendingEntry[];
  handled: PendingEntry[];
  total: number;
}

/** Groups a batch for rendering; inside a section, the most recently enriched first. */
export function groupBatch(entries: readonly PendingEntry[]): DigestBatch {
  const batch: DigestBatch = { new: [], changed: [], handled: [], total: entries.length };
  const sorted = [...entries].sort(
    (a, b) => b.version - a.version || byCodeUnit(a.digest.threadId, b.digest.threadId),
  );
  for (const e of sorted) batch[sectionOf(e)].push(e);
  return batch;
}

const PERIOD_HOURS: Record<DigestEvery, number> = {
  "1h": 1,
  "2h": 2,
  "4h": 4,
  "8h": 8,
  "12h": 12,
  "24h": 24,
};
/** Every period includes this local hour: a daily digest arrives at the start of the working day. */
export const DIGEST_ANCHOR_HOUR = 9;

/** The hours of the day (local) a period ends on, e.g. 8h -> 1, 9, 17. */
export function periodHours(every: DigestEvery): number[] {
  const n = PERIOD_HOURS[every];
  const hours: number[] = [];
  for (let h = 0; h < 24; h++) if ((((h - DIGEST_ANCHOR_HOUR) % n) + n) % n === 0) hours.push(h);
  return hours;
}

/** The cron pattern of a period, to run in the channel's time zone: minute 0 of each period hour. */
export function digestCron(every: DigestEvery): string {
  return every === "1h" ? "0 * * * *" : `0 ${periodHours(every).join(",")} * * *`;
}

export const periodMs = (every: DigestEvery) => PERIOD_HOURS[every] * 3_600_000;

/**
 * The tick before `tickMs` in the channel's zone: where the period that ends at `tickMs`
 * began. Not simply `tickMs - periodMs`: a daily period across a DST change lasts 23 or 25 hours.
 */
export function periodStartOf(every: DigestEvery, tickMs: number, timeZone: string): number {
  try {
    // From a minute before the tick, so that a tick a few ms late does not find itself.
    const it = CronExpressionParser.parse(digestCron(every), {
      tz: timeZone,
      currentDate: new Date(tickMs - 60_000),
    });
    return it.prev().getTime();
  } catch {
    return tickMs - periodMs(every);
  }
}
