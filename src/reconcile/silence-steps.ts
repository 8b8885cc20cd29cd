import { newestPendingMs } from "../intake/view.js";
import { silenceIncidentCommunity, silenceIncidentId } from "../ops/incidents.js";
import { lastDeliveryOf } from "../status/silence.js";
import type { Subscription } from "../store/subscriptions.js";
import { incidentField, readIncident, reconcileStatusKey, type IncidentRecord } from "./reconcile-status.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { StateKeys } from "../store/keys.js";
import type { RedisClient } from "../store/redis.js";
import { incidentStep, silenceAlertText, silenceResolvedText } from "./silence-incident.js";

/*
 * The reconciler's part about webhooks going silent (rule 9): when deliveries last arrived, and
 * the "webhook-silence" incident of each community opened or closed from what a run found.
 */

const TEN_YEARS_S = 10 * 365 * 86_400;

/** When `chatthread-crud` deliveries last arrived: at all, and per community. */
export interface DeliveryClock {
  any: number | undefined;
  byCommunity: Map<string, number>;
  /** The newest delivery not classified yet (in the intake), whatever its community. */
  pending: number | undefined;
}

/**
 * The community whose webhook brings a group's deliveries; "" when no subscription knows it
 * (then the last delivery of any community stands in).
 */
export const communityOf = (subs: Subscription[]): string =>
  subs.find((s) => s.communityId)?.communityId ?? "";

export const lastDeliveryFor = (clock: DeliveryClock, community: string): number | undefined => {
  const known = lastDeliveryOf(community, clock.any, clock.byCommunity);
  return clock.pending === undefined || (known !== undefined && known >= clock.pending)
    ? known
    : clock.pending;
};

/** What one community's silent changes add up to in a run. */
export interface CommunityTally {
  silentSends: number;
  sent: number;
  groupNames: Set<string>;
}

/** When deliveries last arrived, read in the order a delivery moves (the intake first). */
export async function readDeliveryClock(deps: {
  redis: RedisClient;
  intake: Pick<StateKeys, "intake" | "intakeMoving">;
  health: Pick<DeliveryHealthStore, "lastDeliveries" | "lastThreadDeliveries">;
}): Promise<DeliveryClock> {
  const { health } = deps;
  // The intake first: an entry leaves it only once its receipt is recorded.
  const pending = await newestPendingMs(deps.redis, deps.intake);
  const [last, byCommunity] = await Promise.all([health.lastDeliveries(), health.lastThreadDeliveries()]);
  const ms = (at: string | undefined) => {
    const t = at ? Date.parse(at) : NaN;
    return Number.isNaN(t) ? undefined : t;
  };
  const clock: DeliveryClock = { any: ms(last["chatthread-crud"]), byCommunity: new Map(), pending };
  for (const [community, at] of Object.entries(byCommunity)) {
    const t = ms(at);
    if (t !== undefined) clock.byCommunity.set(community, t);
  }
  return clock;
}

/**
 * Opens or closes each community's incident: the communities with silent sends this run,
 * and those with an incident open. "opened" when any opened, else "closed" when any closed.
 */
export async function stepSilenceIncidents(
  deps: {
    ops: Pick<OpsNotifier, "open" | "alert" | "resolve">;
    redis: RedisClient;
    keys: StateKeys;
    /** RECONCILE_INTERVAL, in seconds (the alert says how often it looks). */
    intervalSeconds: number;
  },
  o: { clock: DeliveryClock; tallies: Map<string, CommunityTally>; nowMs: number },
): Promise<"opened" | "closed" | undefined> {
  const { clock, tallies } = o;
  const { ops, redis, keys, intervalSeconds } = deps;
  const statusKey = reconcileStatusKey(keys);
  const open = await ops.open();
  const communities = new Set(tallies.keys());
  for (const id of Object.keys(open)) {
    const c = silenceIncidentCommunity(id);
    if (c !== undefined) communities.add(c);
  }
  let result: "opened" | "closed" | undefined;
  for (const community of communities) {
    const id = silenceIncidentId(community);
    const tally = tallies.get(community);
    const openedAt = open[id]?.at;
    const openedAtMs = openedAt ? Date.parse(openedAt) : undefined;
    const lastDeliveryMs = lastDeliveryFor(clock, community);
    const step = incidentStep({ openedAtMs, silentSends: tally?.silentSends ?? 0, lastDeliveryMs });
    const field = incidentField(community);
    if (step === "open") {
      const text = silenceAlertText({
        community: community || undefined,
        lastDeliveryMs,
        threads: tally?.silentSends ?? 0,
        groupNames: [...(tally?.groupNames ?? [])],
        intervalSeconds,
      });
      // One alert per incident: the window outlives any incident; resolve() ends it.
      await ops.alert(id, text, { windowSeconds: TEN_YEARS_S });
      const record: IncidentRecord = {
        openedAt: new Date(o.nowMs).toISOString(),
        lastDeliveryAt: lastDeliveryMs === undefined ? undefined : new Date(lastDeliveryMs).toISOString(),
        sent: tally?.sent ?? 0,
      };
      await redis.hset(statusKey, field, JSON.stringify(record));
      result = "opened";
    } else if (step === "close" && openedAtMs !== undefined && lastDeliveryMs !== undefined) {
      const kept = await readIncident(redis, statusKey, field);
      const backfilled = (kept?.sent ?? 0) + (tally?.sent ?? 0);
      await ops.resolve(
        id,
        silenceResolvedText({ community: community || undefined, lastDeliveryMs, openedAtMs, backfilled }),
      );
      await redis.hdel(statusKey, field);
      result ??= "closed";
    } else if (openedAtMs !== undefined && tally && tally.sent > 0) {
      const kept = await readIncident(redis, statusKey, field);
      if (kept) await redis.hset(statusKey, field, JSON.stringify({ ...kept, sent: kept.sent + tally.sent }));
    }
  }
  return result;
}
