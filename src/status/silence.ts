/**
 * When webhook deliveries "look silent": the service can disable a webhook upstream (rule 9)
 * and nothing tells us except that `chatthread-crud` deliveries stop. Pure, so the reconciler
 * can refine it without touching the status report.
 */

/**
 * No `chatthread-crud` delivery for this long while subscriptions exist counts as silent.
 * A day: quiet communities go hours without a new or re-enriched thread, rarely a whole day.
 */
export const SILENCE_THRESHOLD_MS = 24 * 3_600_000;

export interface SilenceInput {
  /** ISO time of the last `chatthread-crud` delivery, if any ever arrived. */
  lastThreadDeliveryAt: string | undefined;
  /** `createdAt` of every subscription; none: nothing to be silent about. */
  subscriptionCreatedAt: readonly string[];
  now: Date;
  thresholdMs?: number;
}

export interface SilenceVerdict {
  silent: boolean;
  /** Milliseconds since the last delivery (or since the oldest subscription, when none came). */
  quietForMs: number | undefined;
  /** What the verdict is measured from. */
  since: "last-delivery" | "first-subscription" | undefined;
}

const time = (iso: string | undefined): number | undefined => {
  if (iso === undefined) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

/**
 * Silent when subscriptions exist and the quiet period (from the last delivery, or from the
 * oldest subscription if no delivery ever came) exceeds the threshold. Measuring from the
 * subscription keeps a fresh install from being called silent before anything could arrive.
 */
export function deliveriesLookSilent(input: SilenceInput): SilenceVerdict {
  const threshold = input.thresholdMs ?? SILENCE_THRESHOLD_MS;
  const subs = input.subscriptionCreatedAt.map(time).filter((t): t is number => t !== undefined);
  if (input.subscriptionCreatedAt.length === 0) {
    return { silent: false, quietForMs: undefined, since: undefined };
  }
  const last = time(input.lastThreadDeliveryAt);
  const now = input.now.getTime();
  if (last !== undefined) {
    const quiet = Math.max(0, now - last);
    return { silent: quiet > threshold, quietForMs: quiet, since: "last-delivery" };
  }
  // No delivery ever: measured from the oldest subscription (now, if none has a valid date).
  const from = subs.length > 0 ? Math.min(...subs) : now;
  const quiet = Math.max(0, now - from);
  return { silent: quiet > threshold, quietForMs: quiet, since: "first-subscription" };
}
