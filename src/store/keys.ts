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
    /** Triage of one thread in one channel (handled, assignee): a hash. */
    triage: (channelId: string, threadId: string) => `${s}:triage:${channelId}:${threadId}`,
    /** Who follows one thread in one channel (DMs on re-enrichment): a set of user ids. */
    followers: (channelId: string, threadId: string) => `${s}:followers:${channelId}:${threadId}`,
    /** New messages waiting to go as one reply under a card (`--replies on`): a list. */
    pendingReplies: (channelId: string, threadId: string) => `${s}:replies:${channelId}:${threadId}`,
    /** Cards posted lately, by time ("channel thread" members): what Home lists as open. */
    recentCards: `${s}:triage:recent`,
    /** Threads marked handled, by time ("channel thread" members). */
    handledCards: `${s}:triage:handled`,
    /** Threads assigned to one user, by time ("channel thread" members). */
    assignedTo: (userId: string) => `${s}:triage:assigned:${userId}`,
    /** A button press already acted on (double clicks act once). */
    pressOnce: (userId: string, channelId: string, threadId: string, action: string) =>
      `${s}:press:${userId}:${channelId}:${threadId}:${action}`,
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
    /** A channel's pending batched digest (digest mode): one field per thread, its latest state. */
    digestPending: (channelId: string) => `${s}:digest:pending:${channelId}`,
    /** One flush of a channel's digest (a period, or a `digest now`): its batch, its post, done. */
    digestRun: (channelId: string, period: string) => `${s}:digest:run:${channelId}:${period}`,
    /** The digest job schedulers set for a channel: period -> time zone (a cheap "already set"). */
    digestScheduled: (channelId: string) => `${s}:digest:scheduled:${channelId}`,
    /** A channel's alert settings: groupId -> settings. */
    alerts: (channelId: string) => `${s}:alerts:${channelId}`,
    /** Channels that have alert settings. */
    alertChannels: `${s}:alerts:channels`,
    /** Set once an alert condition fired in a channel (SET NX): one alert per condition and window. */
    alertFired: (channelId: string, condition: string) => `${s}:alerts:fired:${channelId}:${condition}`,
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
