import { isInQuietWindow, nextDailyAt, quietWindowEnd } from "./local-time.js";
import { matchesWatch, type Watch, type WatchSubject } from "./watch.js";

/*
 * What one change of a thread means for the people who watch it: a new DM, an edit of the DM
 * they already have, an entry in their next daily DM, or an entry held until their quiet hours
 * end. Pure: the caller reads the watches, who already has a DM of the thread, and the time
 * zones of those who asked for quiet hours or a daily DM.
 */

/** What a watcher gets for one change of a thread. */
export type WatchDelivery =
  /** A first match: a DM with a compact card of the thread, now. */
  | { kind: "dm"; userId: string; watchId: string }
  /**
   * The person has a DM of this thread already (a card, or a line of a gathered DM): it is
   * edited to the thread's current state, never sent again. `stillMatches` false: the thread
   * left every watch of theirs, and the DM says so (a card never lies, rule 10).
   */
  | { kind: "edit"; userId: string; stillMatches: boolean }
  /** A first match for a `--daily` watch: one line of the DM due at `dueAtMs`. */
  | { kind: "daily"; userId: string; watchId: string; dueAtMs: number }
  /** A first match during `--quiet` hours: held, and sent gathered at `dueAtMs` (the hours' end). */
  | { kind: "held"; userId: string; watchId: string; dueAtMs: number };

export interface WatchDecisionInput {
  /** The thread as it is after this change, with its group. */
  thread: WatchSubject;
  /** The workspace's watches (any person's; those of other groups are skipped here). */
  watches: readonly Watch[];
  /** People who already have a DM of this thread (a card or a gathered line). */
  hasDm: ReadonlySet<string>;
  /** Each person's IANA zone; needed only for those with quiet hours or a daily time. */
  timeZoneOf: (userId: string) => string;
  now: number;
}

/**
 * The deliveries of one change, one per person at most (several watches of one person that
 * match the same thread make one DM): an edit for whoever has a DM already; else, among the
 * person's matching watches, a DM now when one of them is realtime and outside its quiet
 * hours, else held until the earliest end of those quiet hours, else (only daily watches
 * match) a line of the earliest daily DM. Ordered by person, for stable job ids and tests.
 */
export function decideWatchDeliveries(input: WatchDecisionInput): WatchDelivery[] {
  const byUser = new Map<string, Watch[]>();
  for (const w of input.watches) byUser.set(w.userId, [...(byUser.get(w.userId) ?? []), w]);
  const users = [...new Set([...byUser.keys(), ...input.hasDm])].sort();
  const out: WatchDelivery[] = [];
  for (const userId of users) {
    const matching = (byUser.get(userId) ?? []).filter((w) => matchesWatch(w, input.thread));
    if (input.hasDm.has(userId)) {
      out.push({ kind: "edit", userId, stillMatches: matching.length > 0 });
      continue;
    }
    if (matching.length === 0) continue;
    const d = decideForPerson(userId, matching, input);
    if (d) out.push(d);
  }
  return out;
}

function decideForPerson(
  userId: string,
  matching: readonly Watch[],
  input: Pick<WatchDecisionInput, "timeZoneOf" | "now">,
): WatchDelivery | undefined {
  const realtime = matching.filter((w) => w.daily === undefined);
  if (realtime.length > 0) {
    const awake = realtime.find(
      (w) => !w.quiet || !isInQuietWindow(input.now, w.quiet, input.timeZoneOf(userId)),
    );
    if (awake) return { kind: "dm", userId, watchId: awake.id };
    const ends = realtime.map((w) => ({
      w,
      at: w.quiet ? quietWindowEnd(input.now, w.quiet, input.timeZoneOf(userId)) : input.now,
    }));
    const first = ends.sort((a, b) => a.at - b.at)[0];
    return first ? { kind: "held", userId, watchId: first.w.id, dueAtMs: first.at } : undefined;
  }
  const dailies = matching
    .filter((w) => w.daily !== undefined)
    .map((w) => ({ w, at: nextDailyAt(input.now, w.daily ?? 0, input.timeZoneOf(userId)) }))
    .sort((a, b) => a.at - b.at);
  const first = dailies[0];
  return first ? { kind: "daily", userId, watchId: first.w.id, dueAtMs: first.at } : undefined;
}

/** Whether any watch of these needs the person's time zone (quiet hours or a daily time). */
export const needsTimeZone = (watches: readonly Watch[]): boolean =>
  watches.some((w) => w.quiet !== undefined || w.daily !== undefined);
