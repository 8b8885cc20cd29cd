/**
 * Every Redis key the app writes outside BullMQ, in one place. All live under
 * `{REDIS_PREFIX}:state:` so they never meet BullMQ's `{REDIS_PREFIX}:{queue}:` keys.
 */
export function stateKeys(prefix: string) {
  const s = `${prefix}:state`;
  return {
    subsByGroup: (groupId: string) => `${s}:sub:g:${groupId}`,
    subsByChannel: (channelId: string) => `${s}:sub:c:${channelId}`,
    subscribedGroups: `${s}:sub:groups`,
    subscribedChannels: `${s}:sub:channels`,
    messageRef: (channelId: string, threadId: string) => `${s}:ref:${channelId}:${threadId}`,
    posting: (channelId: string, threadId: string) => `${s}:posting:${channelId}:${threadId}`,
    lock: (name: string) => `${s}:lock:${name}`,
    channelSlot: (channelId: string) => `${s}:slot:${channelId}`,
    dedupe: (deliveryId: string) => `${s}:dedupe:${deliveryId}`,
    lastDelivery: `${s}:health:last-delivery`,
    /** The last `chatthread-crud` delivery per community: webhooks are set up, and disabled, per community. */
    lastThreadDeliveryByCommunity: `${s}:health:last-thread-delivery`,
    deliveryCounts: `${s}:health:delivery-counts`,
    deadLetters: `${s}:dead-letters`,
    deadLetterCounts: `${s}:dead-letters:counts`,
    activity: (groupId: string, day: string) => `${s}:activity:${groupId}:${day}`,
    opsAlerts: `${s}:ops:alerts`,
    apiHealth: `${s}:health:api`,
    schedules: `${s}:schedules`,
    reconcileBaseline: (groupId: string) => `${s}:reconcile:${groupId}`,
    /** Set once a channel's weekly summary for a period went out (two schedulers, one post). */
    weeklyRun: (channelId: string, period: string) => `${s}:weekly:run:${channelId}:${period}`,
    weeklyNowCooldown: (channelId: string) => `${s}:weekly:now:${channelId}`,
  };
}
export type StateKeys = ReturnType<typeof stateKeys>;

/**
 * Multi-workspace mode: the deployment-wide keys that find a workspace (its installation, its
 * Insight connection, which webhook secret is its, OAuth states). Everything else of a
 * workspace lives under `workspacePrefix`, in the same stores as single-workspace mode.
 */
export function installKeys(prefix: string) {
  const s = `${prefix}:state:install`;
  return {
    installation: (workspaceId: string) => `${s}:ws:${workspaceId}`,
    connection: (workspaceId: string) => `${s}:conn:${workspaceId}`,
    workspaces: `${s}:workspaces`,
    /** Hash: SHA-256 of a webhook secret -> workspace id. */
    secretIndex: `${s}:secrets`,
    oauthState: (nonce: string) => `${s}:oauth-state:${nonce}`,
  };
}
export type InstallKeys = ReturnType<typeof installKeys>;

/** The key prefix of one workspace's stores; single-workspace mode keeps `prefix` itself (no migration). */
export function workspacePrefix(prefix: string, workspaceId: string): string {
  return `${prefix}:w:${workspaceId}`;
}
