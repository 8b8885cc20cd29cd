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

/**
 * The last thread delivery that speaks for a community's webhook. Webhooks are set up, and
 * disabled, per community, so one community's deliveries say nothing of another's. A
 * subscription of no known community ("") is judged on deliveries from any; so is every
 * community until any community's time is kept (a store from before they were), rather than
 * calling them all silent.
 */
export function lastDeliveryOf<T>(
  community: string,
  any: T | undefined,
  byCommunity: ReadonlyMap<string, T>,
): T | undefined {
  return community && byCommunity.size > 0 ? byCommunity.get(community) : any;
}

export interface CommunitySilenceInput {
  /** ISO time of the last `chatthread-crud` delivery from any community. */
  lastThreadDeliveryAt: string | undefined;
  /** The same, per communityId. */
  lastByCommunity: Record<string, string>;
  /** The active subscriptions; those without a community are judged on deliveries from any. */
  subscriptions: ReadonlyArray<{ communityId: string | undefined; createdAt: string }>;
  now: Date;
  thresholdMs?: number;
}

/** A verdict, and the communities that look silent (by id; "" for subscriptions of no known community). */
export type CommunitySilenceVerdict = SilenceVerdict & { communities: string[] };

/**
 * Webhooks are set up, and disabled, per community, so each community with subscriptions is
 * judged on its own deliveries. Silent when any is; the verdict is then the quietest one's.
 * Otherwise the verdict over all deliveries and subscriptions.
 */
export function communitiesLookSilent(input: CommunitySilenceInput): CommunitySilenceVerdict {
  const byCommunity = new Map<string, string[]>();
  for (const s of input.subscriptions) {
    const c = s.communityId ?? "";
    byCommunity.set(c, [...(byCommunity.get(c) ?? []), s.createdAt]);
  }
  const byCommunityTime = new Map(Object.entries(input.lastByCommunity));
  const common = {
    now: input.now,
    ...(input.thresholdMs === undefined ? {} : { thresholdMs: input.thresholdMs }),
  };
  const silent = [...byCommunity]
    .map(([community, createdAt]) => ({
      community,
      verdict: deliveriesLookSilent({
        lastThreadDeliveryAt: lastDeliveryOf(community, input.lastThreadDeliveryAt, byCommunityTime),
        subscriptionCreatedAt: createdAt,
        ...common,
      }),
    }))
    .filter((x) => x.verdict.silent)
    .sort((a, b) => (b.verdict.quietForMs ?? 0) - (a.verdict.quietForMs ?? 0));
  const quietest = silent[0];
  if (quietest) return { ...quietest.verdict, communities: silent.map((x) => x.community) };
  return {
    ...deliveriesLookSilent({
      lastThreadDeliveryAt: input.lastThreadDeliveryAt,
      subscriptionCreatedAt: input.subscriptions.map((s) => s.createdAt),
      ...common,
    }),
    communities: [],
  };
}
