/**
 * Every Redis key the app writes outside BullMQ, in one place. All live under
 * `{REDIS_PREFIX}:state:` so they never meet BullMQ's `{REDIS_PREFIX}:{queue}:` keys.
 *
 * Slot families (Redis Cluster, rule 11): keys that one script, MULTI or pipeline touches
 * together carry the same hash tag, so they live in one slot; everything else has no tag and
 * spreads over the masters by its whole name. On a cluster the tag is written `{...}`; on one
 * Redis the same text goes without braces, so a single-Redis deployment keeps its key names.
 * - `sub`: every subscription key (one MULTI writes the group's and the channel's side);
 * - `health`: last delivery times, counts and the de-duplication markers (the receiver's one
 *   script marks a whole batch); `dead-letters`: the list and its counts;
 * - `<channel>:<thread>`: a thread's message ref and its posting marker;
 * - `<group>`: a group's daily activity counters (read in one pipeline);
 * - `reconcile`: every baseline, the list of baselines and the reconciler's status;
 * - no tag (one key at a time): locks, channel slots, alerts, schedules, weekly runs.
 */
export function stateKeys(prefix: string, o: { cluster?: boolean } = {}) {
  const s = `${prefix}:state`;
  const tag = (inner: string) => (o.cluster ? `{${inner}}` : inner);
  return {
    // family `sub`
    subsByGroup: (groupId: string) => `${s}:${tag("sub")}:g:${groupId}`,
    subsByChannel: (channelId: string) => `${s}:${tag("sub")}:c:${channelId}`,
    subscribedGroups: `${s}:${tag("sub")}:groups`,
    subscribedChannels: `${s}:${tag("sub")}:channels`,
    // family `<channel>:<thread>`
    messageRef: (channelId: string, threadId: string) => `${s}:ref:${tag(`${channelId}:${threadId}`)}`,
    posting: (channelId: string, threadId: string) => `${s}:posting:${tag(`${channelId}:${threadId}`)}`,
    // no tag
    lock: (name: string) => `${s}:lock:${name}`,
    channelSlot: (channelId: string) => `${s}:slot:${channelId}`,
    // family `health`
    dedupe: (deliveryId: string) =>
      o.cluster ? `${s}:{health}:dedupe:${deliveryId}` : `${s}:dedupe:${deliveryId}`,
    lastDelivery: `${s}:${tag("health")}:last-delivery`,
    /** The last `chatthread-crud` delivery per community: webhooks are set up, and disabled, per community. */
    lastThreadDeliveryByCommunity: `${s}:${tag("health")}:last-thread-delivery`,
    deliveryCounts: `${s}:${tag("health")}:delivery-counts`,
    // family `dead-letters`
    deadLetters: `${s}:${tag("dead-letters")}`,
    deadLetterCounts: `${s}:${tag("dead-letters")}:counts`,
    // family `<group>`
    activity: (groupId: string, day: string) => `${s}:activity:${tag(groupId)}:${day}`,
    // no tag
    opsAlerts: `${s}:ops:alerts`,
    apiHealth: `${s}:health:api`,
    schedules: `${s}:schedules`,
    // family `reconcile`
    reconcileBaseline: (groupId: string) => `${s}:${tag("reconcile")}:${groupId}`,
    // no tag
    /** Set once a channel's weekly summary for a period went out (two schedulers, one post). */
    weeklyRun: (channelId: string, period: string) => `${s}:weekly:run:${channelId}:${period}`,
    weeklyNowCooldown: (channelId: string) => `${s}:weekly:now:${channelId}`,
  };
}
export type StateKeys = ReturnType<typeof stateKeys>;
