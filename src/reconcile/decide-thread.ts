/*
 * What the reconciler does with one thread of a listing it just read. Pure, so every case of
 * the ordering rules below is tested without Redis or HTTP.
 *
 * The listing carries no enrichment time, so the reconciler works from two clocks it does have:
 * its own readings of the group, and the time of the last webhook delivery.
 *
 * - A change is a difference between the thread's enrichment fingerprint now and at the
 *   previous reading (`previousReadMs`, P). It therefore happened after P (or after the
 *   earlier reading where it was first seen and deferred: `since`).
 * - The synthesised event's `payload.timestamp` is T = max(since, thread start), capped at the
 *   reading. Every webhook for the same enrichment was sent after the enrichment, so after T:
 *   in the Slack-out worker's version check (rule 2) a real delivery always wins over the
 *   reconciler, and a reconciler edit can never overwrite a newer delivered enrichment. The
 *   reconciler's own earlier edits carry an older P, so its later edits still go through.
 * - A change is explained, and nothing is sent, when every channel that wants the thread
 *   already shows a rendering recorded at or after `since` (a delivery or a refresh did it),
 *   with the sentiment if the listing has one. An unchanged fingerprint sends nothing either:
 *   a thread already shown with identical content is never edited again.
 * - While deliveries are flowing (a `chatthread-crud` arrived at or after `since`), an
 *   unexplained change may just be a digest still queued: it is deferred to the next reading
 *   and sent then if still unexplained. When nothing was delivered since `since`, nothing can
 *   be in flight, so it is sent at once: that is the webhook-silence case.
 * - A reading that comes late (more than two intervals after the previous one: Redis or the
 *   scheduler was down) cannot trust the delivery clock either: deliveries received meanwhile
 *   may still wait in a web process's spool. Its changes wait one reading too.
 * - Only a digest that went out without sentiment and that the listing can now complete is
 *   re-sent at its own delivered timestamp (same enrichment, version + 1: rule 2's tie-break).
 * - A thread seen for the first time counts as a change only if it was active after the group's
 *   baseline was taken (a new thread, or an old one brought back to life, which the service
 *   re-enriches and would deliver); one that merely shifts into the newest page is only
 *   remembered. With the first reading as the baseline, subscribing never floods a channel.
 *
 * Limitation: a second re-enrichment inside the same interval as a delivered one is taken as
 * explained by that delivery; the thread's next change (delivered or reconciled) shows it.
 */

/** What the reconciler remembers of one thread between readings. */
export interface BaselineEntry {
  /** enrichmentFingerprint at the last reading. */
  f: string;
  /** When that reading happened (ms), for trimming. */
  seen: number;
  /** Set while an unexplained change waits one reading: the earliest time it can have happened. */
  pending?: number;
}

/** The channel-side view of one thread: what a subscribed channel shows, if anything. */
export interface ShownDigest {
  enrichedAtMs: number;
  hasSentiment: boolean;
}

export interface ThreadSnapshot {
  fingerprint: string;
  hasSentiment: boolean;
  /** threadStartMs: first message, else last activity. A thread is enriched after it starts. */
  startMs: number | undefined;
  /** threadLastActivityMs: last message, else first. */
  lastActivityMs: number | undefined;
}

export interface DecideInput {
  entry: BaselineEntry | undefined;
  thread: ThreadSnapshot;
  /** One item per subscribed channel whose filters let the thread through; undefined: never shown there. */
  shown: (ShownDigest | undefined)[];
  previousReadMs: number;
  baselineMs: number;
  /** The last `chatthread-crud` delivery (any group), if one ever arrived. */
  lastDeliveryMs: number | undefined;
  readMs: number;
  /** This reading came much later than planned (see above). */
  late?: boolean;
}

export type Decision =
  | { action: "unchanged" }
  | { action: "remember"; why: "quiet-since-baseline" | "no-channel-wants-it" }
  | { action: "explained" }
  | { action: "defer"; since: number }
  | { action: "send"; timestampMs: number; reason: "silence" | "confirmed" | "sentiment"; since: number };

export function decideThread(i: DecideInput): Decision {
  const { entry, thread } = i;
  if (entry && entry.f === thread.fingerprint && entry.pending === undefined) return { action: "unchanged" };
  if (!entry && (thread.lastActivityMs === undefined || thread.lastActivityMs < i.baselineMs)) {
    return { action: "remember", why: "quiet-since-baseline" };
  }
  if (i.shown.length === 0) return { action: "remember", why: "no-channel-wants-it" };

  // Waiting since an earlier reading with the same content: keep that earliest bound.
  const carried = entry?.pending !== undefined && entry.f === thread.fingerprint;
  const since = carried && entry.pending !== undefined ? entry.pending : i.previousReadMs;
  const complete = (s: ShownDigest) => s.hasSentiment || !thread.hasSentiment;
  const delivered = i.shown.filter((s): s is ShownDigest => s !== undefined && s.enrichedAtMs >= since);
  if (delivered.length === i.shown.length && delivered.every(complete)) return { action: "explained" };

  const lacking = delivered.filter((s) => !complete(s));
  const delivering = i.lastDeliveryMs !== undefined && i.lastDeliveryMs >= since;
  const flowing = delivering || i.late === true;
  if (lacking.length > 0 && delivered.length === i.shown.length) {
    // Delivered, only the sentiment is missing: the refresh jobs may still bring it.
    if (!carried && flowing) return { action: "defer", since };
    const timestampMs = Math.max(...lacking.map((s) => s.enrichedAtMs));
    return { action: "send", timestampMs, reason: "sentiment", since };
  }
  const timestampMs =
    lacking.length > 0
      ? Math.max(...lacking.map((s) => s.enrichedAtMs))
      : Math.min(i.readMs, Math.max(since, thread.startMs ?? since));
  if (carried) return { action: "send", timestampMs, reason: delivering ? "confirmed" : "silence", since };
  if (flowing) return { action: "defer", since };
  return { action: "send", timestampMs, reason: "silence", since };
}

/** The entry to remember after a decision. */
export function nextEntry(
  thread: ThreadSnapshot,
  d: Decision,
  readMs: number,
  entry: BaselineEntry | undefined,
): BaselineEntry {
  if (d.action === "unchanged" && entry) return { ...entry, seen: readMs };
  if (d.action === "defer") return { f: thread.fingerprint, seen: readMs, pending: d.since };
  return { f: thread.fingerprint, seen: readMs };
}
