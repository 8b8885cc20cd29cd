/**
 * Every Redis key the app writes outside BullMQ, in one place. All live under
 * `{REDIS_PREFIX}:state:` so they never meet BullMQ's `{REDIS_PREFIX}:{queue}:` keys.
 *
 * Slot families (Redis Cluster, rule 11): keys that one script, MULTI or pipeline touches
 * together carry the same hash tag, so they live in one slot; everything else has no tag and
 * spreads over the masters by its whole name. On a cluster the tag is written `{...}`; on one
 * Redis the same text goes without braces, so a single-Redis deployment keeps its key names.
 * - `sub`: every subscription key (one MULTI writes the group's and the channel's side);
 * - `health`: last delivery times, counts, the de-duplication markers (day buckets, and the
 *   older one-key markers) and the intake list (the pump's one script marks a whole batch);
 *   `dead-letters`: the list and its counts;
 * - `<channel>`: a channel's card refs (one hash per 30-day period) and its posting marks (one
 *   script records a ref, moves it out of an earlier period and clears the mark);
 * - `<channel>:<thread>`: the replies waiting to go under a card and the messages ever queued
 *   there (one script writes both); the refs of the layout before issue 38;
 * - `ci<n>`: one shard of the per-thread index of channels showing a card (one hash per
 *   30-day period; one script moves an entry to the current period);
 * - `<group>`: a group's daily activity counters (read in one pipeline);
 * - `<channel>:<time>`: the cards whose counts windows end then, and the mark that their one job
 *   has taken them (one script checks the mark and adds, one marks and takes);
 * - `reconcile`: every baseline, the list of baselines and the reconciler's status;
 * - `alerts`: every channel's alert settings and the set of channels that have some;
 * - `install` (installKeys): every installation, the set of installed workspaces, every Insight
 *   connection and the webhook secret index;
 * - `watch`: every person's watches, the set of watchers and the id counter (one script adds a
 *   watch under the limit);
 * - no tag (one key at a time): locks, channel slots, method holds, alerts, schedules, weekly runs,
 *   a thread's triage and followers, watch DMs, pending watch matches, reminders, the
 *   assistant's conversations and time zones.
 *
 * Memory per posted card (issue 38; docs/scaling.md "Redis memory per card"): refs, dedupe
 * markers and the thread index are fields of shared hashes (per channel and 30-day period, per
 * day and shard, per shard and period), not keys of their own: about 470 bytes a card in all
 * (370 + 56 + 40, bench/card-bytes.ts) against 1,660 with one key each.
 */
export function stateKeys(prefix: string, o: { cluster?: boolean } = {}) {
  const s = `${prefix}:state`;
  const tag = (inner: string) => (o.cluster ? `{${inner}}` : inner);
  return {
    /** Set for a workspace of many (workspaceStateKeys); the single workspace is always visited. */
    workspaceMark: undefined as WorkspaceMark | undefined,
    // family `sub`
    subsByGroup: (groupId: string) => `${s}:${tag("sub")}:g:${groupId}`,
    subsByChannel: (channelId: string) => `${s}:${tag("sub")}:c:${channelId}`,
    subscribedGroups: `${s}:${tag("sub")}:groups`,
    subscribedChannels: `${s}:${tag("sub")}:channels`,
    // family `<channel>`
    /**
     * A channel's card refs written in one 30-day period (`period`: days since the epoch / 30):
     * a hash, thread -> the ref and its card, compact (store/card-codec.ts). Read back over the
     * 7 periods that can still hold a live ref; expires 180 days after its period ends.
     */
    refs: (channelId: string, period: number) => `${s}:refs:${tag(channelId)}:${period}`,
    /** A post about to be sent (message-refs.ts `markPosting`): in its channel's slot, cleared with the ref. */
    posting: (channelId: string, threadId: string) => `${s}:posting:${tag(channelId)}:${threadId}`,
    // family `<channel>:<thread>`
    /**
     * The layout before issue 38: one hash per card ref (version, ts, enrichedAtMs, hasSentiment,
     * groupId, card JSON). Still read when a ref is not found in `refs`, and folded into it when
     * written, until the start migration (migrate-card-refs.ts) has moved every one.
     */
    messageRef: (channelId: string, threadId: string) => `${s}:ref:${tag(`${channelId}:${threadId}`)}`,
    /** The posting mark's name before issue 38 (cluster only; one Redis keeps the same name). */
    legacyPosting: (channelId: string, threadId: string) => `${s}:posting:${tag(`${channelId}:${threadId}`)}`,
    /** New messages waiting to go as one reply under a card (`--replies on`): a list. */
    pendingReplies: (channelId: string, threadId: string) =>
      `${s}:replies:${tag(`${channelId}:${threadId}`)}`,
    /** Every message id queued under that card lately (a set): a delivery processed twice adds nothing. */
    repliesQueued: (channelId: string, threadId: string) =>
      `${s}:replies-queued:${tag(`${channelId}:${threadId}`)}`,
    // no tag
    lock: (name: string) => `${s}:lock:${name}`,
    /**
     * Triage of one thread in the workspace (handled, assignee, where each was pressed): a hash.
     * Triage belongs to the thread, not to one channel's card (docs/using.md, digest card actions).
     */
    threadTriage: (threadId: string) => `${s}:thread-triage:${threadId}`,
    /** Who follows one thread (one DM per re-enrichment, however many channels show it): a set of user ids. */
    threadFollowers: (threadId: string) => `${s}:thread-followers:${threadId}`,
    /**
     * The layout before issue 38 of the channels that show a card of one thread: a sorted set,
     * channel -> when its card was first posted. Folded into `cardIndex` (message-refs.ts).
     */
    threadCards: (threadId: string) => `${s}:thread-cards:${threadId}`,
    /** Set once the followers of a thread were sent their DM of one re-enrichment (SET NX). */
    followersTold: (threadId: string, enrichedAtMs: number) =>
      `${s}:followers-told:${threadId}:${enrichedAtMs}`,
    /** Threads whose cards were posted lately, by time (thread ids): what Home lists as open. */
    recentThreads: `${s}:threads:recent`,
    /** Threads marked handled, by time (thread ids). */
    handledThreads: `${s}:threads:handled`,
    /** Threads assigned to one user, by time (thread ids). */
    assignedThreads: (userId: string) => `${s}:threads:assigned:${userId}`,
    /** A thread held back only by a channel's thresholds: its latest event, looked at again when counts move. */
    belowThreshold: (threadId: string) => `${s}:below-threshold:${threadId}`,
    /** When a message of the thread was last routed: a counts edit trusts listing entries read after it. */
    threadMessageAt: (threadId: string) => `${s}:message-at:${threadId}`,
    /** The cards of a channel whose counts windows end at `at` (ms), and its mark once their job took them. */
    countsDue: (channelId: string, at: number) => `${s}:counts-due:${tag(`${channelId}:${at}`)}`,
    countsDueTaken: (channelId: string, at: number) => `${s}:counts-due:${tag(`${channelId}:${at}`)}:taken`,
    /** A button press already acted on (double clicks act once). */
    pressOnce: (userId: string, threadId: string, action: string) =>
      `${s}:press:${userId}:${threadId}:${action}`,
    /** Set once a migration of this prefix's state has run to its end (store/migrate-*.ts). */
    migrated: (name: string) => `${s}:migrated:${name}`,
    channelSlot: (channelId: string) => `${s}:slot:${channelId}`,
    /** A Slack method held after its 429 (every channel of the workspace waits): until, in ms. */
    slackHold: (method: string) => `${s}:slack-hold:${method}`,
    // family `ci<n>`
    /**
     * The channels that show a card of each thread, for threads whose index entry was written in
     * one 30-day period, in one of 64 shards by thread: a hash, thread -> "channel@time,...".
     */
    cardIndex: (shard: number, period: number) => `${s}:card-index:${tag(`ci${shard}`)}:${period}`,
    // family `health`
    /**
     * The de-duplication markers recorded on one day (days since the epoch, UTC), in one of 64
     * shards by delivery id (its first 6 bits): a hash, the id's bytes -> the marker
     * (intake/receipts.ts). A lookup reads the same shard of the 8 days that cover 7 days.
     */
    dedupeDay: (day: number, shard: string) => `${s}:${tag("health")}:seen:${day}:${shard}`,
    /** The marker's key before issue 38 (one string each, 7 days): still read until they expire. */
    dedupe: (deliveryId: string) =>
      o.cluster ? `${s}:{health}:dedupe:${deliveryId}` : `${s}:dedupe:${deliveryId}`,
    lastDelivery: `${s}:${tag("health")}:last-delivery`,
    /** The last `chatthread-crud` delivery per community: webhooks are set up, and disabled, per community. */
    lastThreadDeliveryByCommunity: `${s}:${tag("health")}:last-thread-delivery`,
    deliveryCounts: `${s}:${tag("health")}:delivery-counts`,
    /**
     * Deliveries acknowledged and not yet in the deliveries queue (a list of JSON items, oldest
     * first), and the batch the intake pump is moving (intake/pump.ts). In the `health`
     * family: the receiver's one script marks a delivery and appends it here together.
     */
    intake: `${s}:${tag("health")}:intake`,
    intakeMoving: `${s}:${tag("health")}:intake-moving`,
    /** Which intake pump leads (one at a time, so deliveries are queued in order): a lease. */
    intakeLease: `${s}:${tag("health")}:intake-pump`,
    /** The pump that held the lease last (its token): its own lease to take back after a quiet spell. */
    intakeLeader: `${s}:${tag("health")}:intake-leader`,
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
    /** A channel's pending batched digest (digest mode): one field per thread, its latest state. */
    digestPending: (channelId: string) => `${s}:digest:pending:${channelId}`,
    /** One flush of a channel's digest (a period, or a `digest now`): its batch, its post, done. */
    digestRun: (channelId: string, period: string) => `${s}:digest:run:${channelId}:${period}`,
    /** The digest job schedulers set for a channel: period -> time zone (a cheap "already set"). */
    digestScheduled: (channelId: string) => `${s}:digest:scheduled:${channelId}`,
    // family `alerts`: one MULTI writes a channel's settings and the set of channels.
    /** A channel's alert settings: groupId -> settings. */
    alerts: (channelId: string) => `${s}:${tag("alerts")}:${channelId}`,
    /** Channels that have alert settings. */
    alertChannels: `${s}:${tag("alerts")}:channels`,
    // no tag
    /** Set once an alert condition fired in a channel (SET NX): one alert per condition and window. */
    alertFired: (channelId: string, condition: string) => `${s}:alerts:fired:${channelId}:${condition}`,
    /**
     * One conversation with the assistant (an assistant thread, or a mention's thread): a hash of
     * its Slack thread context, what the last question set (group, range) and whether it is titled.
     */
    askThread: (channelId: string, threadTs: string) => `${s}:ask:thread:${channelId}:${threadTs}`,
    /** A question already taken (SET NX): Slack's retried event deliveries answer once. */
    askTaken: (channelId: string, ts: string) => `${s}:ask:taken:${channelId}:${ts}`,
    /** A user's Slack time zone (users.info `tz`), cached briefly. */
    userTimeZone: (userId: string) => `${s}:tz:${userId}`,
    // family `watch`: one script adds a watch, counts the person's and notes them among watchers.
    /** One person's watches: id -> the watch (JSON). */
    watches: (userId: string) => `${s}:${tag("watch")}:u:${userId}`,
    /** People who have at least one watch: what matching a thread reads first. */
    watchers: `${s}:${tag("watch")}:users`,
    /** The last watch id given to each person: userId -> number. */
    watchIds: `${s}:${tag("watch")}:ids`,
    // no tag
    /** Who has a DM of one thread from a watch, and where: userId -> the DM's ref (JSON). */
    watchDms: (threadId: string) => `${s}:watch-dm:${threadId}`,
    /** What one gathered watch DM (daily, or after quiet hours) lists, so a change edits it. */
    watchGathered: (userId: string, ts: string) => `${s}:watch-gathered:${userId}:${ts}`,
    /** A person's matches waiting for their daily DM or the end of their quiet hours: threadId -> entry. */
    watchPending: (userId: string) => `${s}:watch-pending:${userId}`,
    /** A person's reminders (`digest.remind`): id -> the reminder (JSON). */
    reminders: (userId: string) => `${s}:remind:${userId}`,
  };
}
export type StateKeys = ReturnType<typeof stateKeys>;

/**
 * What a workspace keeps that makes a deployment-wide tick worth running for it: followed groups
 * (subscriptions), alert settings, open operational incidents.
 */
export type WorkspaceHas = "subscriptions" | "alerts" | "incidents";

/**
 * Many workspaces: where a workspace's stores note that it has one of `WorkspaceHas` (the
 * deployment's set of workspaces with it, `workspacesWithKeys`), so a tick visits only those.
 */
export interface WorkspaceMark {
  workspaceId: string;
  setOf(has: WorkspaceHas): string;
}

/**
 * Multi-workspace mode: the deployment-wide keys that find a workspace (its installation, its
 * Insight connection, which webhook secret is its, OAuth states). Everything else of a
 * workspace lives under `workspacePrefix`, in the same stores as single-workspace mode.
 */
export function installKeys(prefix: string, o: { cluster?: boolean } = {}) {
  const s = `${prefix}:state:install`;
  // family `install`: an installation and the set of workspaces change in one MULTI, and so do
  // a connection and the secret index.
  const t = o.cluster ? `${prefix}:state:{install}` : s;
  return {
    installation: (workspaceId: string) => `${t}:ws:${workspaceId}`,
    connection: (workspaceId: string) => `${t}:conn:${workspaceId}`,
    workspaces: `${t}:workspaces`,
    /** Hash: SHA-256 of a webhook secret -> workspace id. */
    secretIndex: `${t}:secrets`,
    oauthState: (nonce: string) => `${s}:oauth-state:${nonce}`,
  };
}
export type InstallKeys = ReturnType<typeof installKeys>;

/**
 * Multi-workspace mode: each workspace's last fair-queueing tag in one shard of a queue
 * (workspaces/fair-turns.ts), a hash. The shard's BullMQ name is part of it: on a cluster that
 * name is the shard's hash tag (`{slack-out-0}`), so this key shares the slot of the shard's own
 * keys, which the one script reads with it (rule 11).
 */
export function fairTurnsKey(prefix: string, queueName: string): string {
  return `${prefix}:state:fair:${queueName}`;
}

/**
 * Many workspaces: per kind, the set of workspaces that have it or had it (a store notes it when
 * it writes; a tick drops those whose key is gone), and the mark that the sets were built once
 * from every installed workspace (a deployment from before them). No tag: one command a key.
 */
export function workspacesWithKeys(prefix: string) {
  return {
    setOf: (has: WorkspaceHas) => `${prefix}:state:with:${has}`,
    built: `${prefix}:state:with:built`,
  };
}
export type WorkspacesWithKeys = ReturnType<typeof workspacesWithKeys>;

/** The key prefix of one workspace's stores; single-workspace mode keeps `prefix` itself (no migration). */
export function workspacePrefix(prefix: string, workspaceId: string): string {
  return `${prefix}:w:${workspaceId}`;
}

/** A workspace's state keys: the same families as a single-workspace deployment's, under its prefix. */
export function workspaceStateKeys(
  prefix: string,
  workspaceId: string,
  o: { cluster?: boolean } = {},
): StateKeys {
  const { setOf } = workspacesWithKeys(prefix);
  return { ...stateKeys(workspacePrefix(prefix, workspaceId), o), workspaceMark: { workspaceId, setOf } };
}
