import type { CardEffects } from "../slack/actions/card-actions.js";
import type { MessageRouteDeps } from "../jobs/route-message-event.js";
import type { RouteDeps } from "../jobs/route-thread-event.js";
import type { SlackJobDeps } from "../jobs/slack-jobs/deps.js";
import type { ReconcilerDeps } from "../reconcile/reconciler.js";
import type { CommandsDeps } from "../slack/commands/feature.js";
import type { StatusDeps } from "../status/gather-status.js";
import { Spool } from "../webhooks/spool.js";
import { scheduleLine } from "../weekly/describe-schedule.js";
import type { WeeklyCommandDeps } from "../weekly/command.js";
import type { WeeklyRunDeps } from "../weekly/run-weekly.js";
import type { WorkspaceServices } from "./workspace-services.js";
import type { AppWorkspace } from "./app-workspace.js";
import { digestIntake } from "../digest/intake.js";
import { syncChannelDigest } from "../digest/sync-channel-digest.js";
import type { DigestFlushDeps } from "../digest/flush.js";
import type { DigestCommandDeps } from "../slack/commands/digest.js";
import { jobId } from "../jobs/job-types.js";
import { stateKeys } from "../store/keys.js";
import { isCluster } from "../store/redis.js";
import type { AlertsEvalDeps } from "../alerts/evaluate.js";
import type { AlertsCommandDeps } from "../slack/commands/alerts.js";
import type { AlertsFeatureDeps } from "../alerts/feature.js";
import type { DigestFeatureDeps } from "../digest/feature.js";
import { repeatCheck } from "../intake/receipts.js";
import type { RelayDeps } from "../jobs/relay-feature.js";
import type { WeeklyFeatureDeps } from "../weekly/feature.js";
import { CommunityReader } from "../ask/community-reader.js";
import { ConversationStore } from "../ask/conversation-store.js";
import type { AskDeps } from "../ask/deps.js";
import { userTimeZones, type UserTimeZones } from "../slack/user-time-zone.js";
import { reminderJob } from "../jobs/slack-jobs/remind.js";
import type { RouteWatchDeps } from "../jobs/route-watches.js";
import { refreshThreadCards } from "../jobs/thread-cards.js";

/*
 * Each feature's narrow dependencies, cut from the process's services. Tests build features
 * and their parts (a Reconciler, gatherStatus) from a harness's services through these too.
 */

/** Three Slack calls at most under the posting lock, 10 s timeout each, plus a margin. */
const DIGEST_LOCK_TTL_MS = 45_000;

export function routeDeps(s: WorkspaceServices): RouteDeps {
  return {
    subscriptions: s.subscriptions,
    refs: s.refs,
    lookup: s.insight.lookup,
    slackQueue: () => s.queues.slack,
    refreshQueue: () => s.queues.refresh,
    ops: s.ops,
    logger: s.logger,
    ...(s.tuning.refreshDelaysMs ? { refreshDelaysMs: s.tuning.refreshDelaysMs } : {}),
    ...(s.tuning.firstPostWaitsMs ? { firstPostWaitsMs: s.tuning.firstPostWaitsMs } : {}),
    digest: digestIntake({ pending: s.digest.pending, schedules: s.digest.schedules }),
    watches: routeWatchDeps(s),
    belowThreshold: s.belowThreshold,
    countThread: (groupId, threadId) => s.insight.messages.counts(groupId, threadId),
  };
}

/** Personal watches on the delivery path: the workspace's watches, its people's DMs and zones. */
export function routeWatchDeps(s: WorkspaceServices): RouteWatchDeps {
  return {
    watches: s.watches,
    watchDms: s.watchDms,
    watchPending: s.watchPending,
    userTimeZoneOf: (userId) => userTimeZonesOf(s).of(userId),
    logger: s.logger,
  };
}

export function digestCommandDeps(s: WorkspaceServices): DigestCommandDeps {
  return {
    subscriptions: s.subscriptions,
    pending: s.digest.pending,
    flushNow: async (channelId, requestedBy) => {
      await s.queues.digest.add(
        "digest-now",
        { channelId, trigger: "now", requestedBy },
        { jobId: jobId("digest-now", channelId, Date.now()) },
      );
    },
  };
}

export function digestFlushDeps(s: WorkspaceServices): DigestFlushDeps {
  return {
    redis: s.redis,
    keys: s.keys,
    pending: s.digest.pending,
    subscriptions: s.subscriptions,
    schedules: s.digest.schedules,
    timeZoneOf: s.digest.timeZoneOf,
    sender: s.sender,
    throttle: s.throttle,
    ops: s.ops,
    logger: s.logger,
  };
}

export function messageRouteDeps(s: WorkspaceServices): MessageRouteDeps {
  return {
    subscriptions: s.subscriptions,
    refs: s.refs,
    replies: s.replies,
    slackQueue: () => s.queues.slack,
    belowThreshold: s.belowThreshold,
    refreshQueue: () => s.queues.refresh,
    threadActivity: s.threadActivity,
    countsDue: s.countsDue,
    asked: s.asked,
    ...(s.tuning.countsDebounceMs ? { countsDebounceMs: s.tuning.countsDebounceMs } : {}),
    ...(s.tuning.repliesBatchMs ? { repliesBatchMs: s.tuning.repliesBatchMs } : {}),
  };
}

export function slackOutDeps(s: WorkspaceServices): SlackJobDeps {
  return {
    redis: s.redis,
    keys: s.keys,
    refs: s.refs,
    triage: s.triage,
    replies: s.replies,
    slackQueue: () => s.queues.slack,
    countsDue: s.countsDue,
    // The listing's counts read after the thread's last message (the same the listing gives `threads`).
    counts: async (groupId, threadId) =>
      s.insight.lookup.countsOf(groupId, threadId, await s.threadActivity.lastMessageAt(threadId)),
    messageKinds: (groupId, threadId, ids) => s.insight.messages.kinds(groupId, threadId, ids),
    throttle: s.throttle,
    subscriptions: s.subscriptions,
    ops: s.ops,
    sender: s.sender,
    restarts: s.restarts,
    logger: s.logger,
    lockTtlMs: s.tuning.digestLockTtlMs ?? DIGEST_LOCK_TTL_MS,
    reminders: s.reminders,
    watchDms: s.watchDms,
    watches: s.watches,
    watchPending: s.watchPending,
  };
}

export function statusDeps(s: WorkspaceServices): StatusDeps {
  return {
    health: s.health,
    subscriptions: s.subscriptions,
    ops: s.ops,
    // The workspace's own jobs only (status shows that workspace alone).
    queues: () => s.status.queues(),
    insight: s.insight.client,
    insightConnected: () => s.status.insightConnected,
    // Overdue jobs are the deployment's (queue names, shards): the single workspace's status shows them.
    ...(s.status.overdue ? { overdue: s.status.overdue } : {}),
    // A fresh reader each time: the spool's segments are shared by every process on SPOOL_DIR.
    spoolSize: () => new Spool(s.status.spoolDir, s.logger).sizeOnDisk(),
    reportInsightError: s.reportInsightError,
    logger: s.logger,
  };
}

export function commandsDeps(s: AppWorkspace): CommandsDeps {
  return {
    ...statusDeps(s),
    insight: s.insight.client,
    subscriptions: s.subscriptions,
    ops: s.ops,
    slack: s.slack,
    adminUserIds: s.config.adminUserIds,
    describeSchedule: scheduleLine(s.schedules),
    timeZoneOf: s.digest.timeZoneOf,
    syncDigest: (channelId, groupId) =>
      syncChannelDigest(
        { subscriptions: s.subscriptions, pending: s.digest.pending, schedules: s.digest.schedules },
        channelId,
        groupId,
      ),
    alerts: s.alerts,
    triage: s.triage,
    refs: s.refs,
    cards: cardEffects(s),
    // The workspace's own subcommands, for Home's quick help.
    help: () => s.commands.all,
    ...personalDeps(s),
    ...(s.homeTop ? { homeTop: s.homeTop } : {}),
  };
}

/** Card edits and DMs that button presses ask for, through the outbound queue and its throttle. */
export function cardEffects(s: WorkspaceServices): CardEffects {
  return {
    async refresh(threadId, key, pressedIn) {
      await refreshThreadCards(
        { refs: s.refs, watchDms: s.watchDms, slackQueue: () => s.queues.slack },
        threadId,
        key,
        pressedIn,
      );
    },
    async dm({ userId, text, card, key }) {
      await s.queues.slack.add(
        "dm",
        { kind: "dm", channelId: userId, userId, text, ...(card ? { card } : {}) },
        { jobId: jobId("dm", userId, key) },
      );
    },
  };
}

export function weeklyCommandDeps(s: WorkspaceServices): WeeklyCommandDeps {
  return {
    schedules: s.schedules,
    subscriptions: s.subscriptions,
    queue: () => s.queues.weekly,
    redis: s.redis,
    cooldownKey: s.keys.weeklyNowCooldown,
    nowCooldownMs: 10 * 60_000,
    defaults: { cron: s.config.weekly.defaultCron, timeZone: s.config.weekly.defaultTimezone },
    adminUserIds: s.config.adminUserIds,
  };
}

export function weeklyRunDeps(s: WorkspaceServices): WeeklyRunDeps {
  return {
    client: s.insight.client,
    logger: s.logger,
    redis: s.redis,
    runKey: s.keys.weeklyRun,
    subscriptions: s.subscriptions,
    sender: s.sender,
    throttle: s.throttle,
    ops: s.ops,
    reportInsightError: s.reportInsightError,
    // Triage belongs to the thread: handled in any channel (or a watch DM) counts.
    handled: (_channelId, threadIds) => s.triage.handledAmong(threadIds),
  };
}

export function reconcilerDeps(s: WorkspaceServices): ReconcilerDeps {
  const { lookup: _lookup, ...route } = routeDeps(s);
  return {
    intervalSeconds: s.config.reconcileIntervalSeconds,
    redis: s.redis,
    keys: s.keys,
    subscriptions: s.subscriptions,
    insight: s.insight.client,
    refs: s.refs,
    health: s.health,
    // The deployment's own intake, also for a workspace's reconciler: there is one.
    intake: stateKeys(s.config.redis.prefix, { cluster: isCluster(s.redis) }),
    ops: s.ops,
    route,
    reportInsightError: s.reportInsightError,
    logger: s.logger,
  };
}

export function alertsCommandDeps(s: WorkspaceServices): AlertsCommandDeps {
  return { insight: s.insight.client, reportInsightError: s.reportInsightError, alerts: s.alerts };
}

export function alertsEvalDeps(s: WorkspaceServices): AlertsEvalDeps {
  return {
    settings: s.alerts,
    insight: s.insight.client,
    refs: s.refs,
    redis: s.redis,
    keys: s.keys,
    sender: s.sender,
    subscriptions: s.subscriptions,
    throttle: s.throttle,
    ops: s.ops,
    reportInsightError: s.reportInsightError,
    logger: s.logger,
  };
}

/** The relay's deps in one workspace: its routing, message deliveries and Slack jobs. */
export function relayDeps(s: WorkspaceServices): RelayDeps {
  return {
    route: routeDeps(s),
    messages: messageRouteDeps(s),
    health: s.health,
    isRepeat: repeatCheck(s.redis, s.keys),
    slackOut: slackOutDeps(s),
    deliveriesQueue: () => s.queues.deliveries,
  };
}

export function weeklyFeatureDeps(s: WorkspaceServices): WeeklyFeatureDeps {
  return { command: weeklyCommandDeps(s), run: weeklyRunDeps(s), schedules: s.schedules };
}

export function digestFeatureDeps(s: WorkspaceServices): DigestFeatureDeps {
  return { command: digestCommandDeps(s), flush: digestFlushDeps(s), schedules: s.digest.schedules };
}

export function alertsFeatureDeps(s: WorkspaceServices): AlertsFeatureDeps {
  return { command: alertsCommandDeps(s), evaluate: alertsEvalDeps(s) };
}

/** Asking the community in one workspace: its connection (read through a bounded, sharing reader), its conversations, its askers' zones. */
export function askDeps(s: WorkspaceServices): AskDeps {
  return {
    insight: s.insight.client,
    reader: new CommunityReader(s.insight.client),
    subscriptions: s.subscriptions,
    conversations: new ConversationStore(s.redis, s.keys),
    timeZones: userTimeZonesOf(s),
    slack: s.slack,
    reportInsightError: s.reportInsightError,
    logger: s.logger,
    now: Date.now,
  };
}

/** The askers' own Slack time zones (users.info), kept briefly in the workspace's Redis. */
export function userTimeZonesOf(s: WorkspaceServices): UserTimeZones {
  return userTimeZones({
    slack: s.slack,
    redis: s.redis,
    key: (userId) => s.keys.userTimeZone(userId),
    fallback: s.config.weekly.defaultTimezone,
    logger: s.logger,
  });
}

/** Watches and reminders: the person's own, in their workspace, and the reminders' queue. */
function personalDeps(s: WorkspaceServices) {
  return {
    watches: s.watches,
    watchDms: s.watchDms,
    reminders: s.reminders,
    userTimeZoneOf: (userId: string) => userTimeZonesOf(s).of(userId),
    scheduleReminder: async (r: { id: string; userId: string; dueAtMs: number }) => {
      const job = reminderJob(r, Date.now());
      await s.queues.slack.add(job.name, job.data, job.opts);
    },
  };
}
