import type { CardEffects } from "../slack/actions/card-actions.js";
import type { MessageRouteDeps } from "../jobs/route-message-event.js";
import type { RouteDeps } from "../jobs/route-thread-event.js";
import type { SlackOutDeps } from "../jobs/slack-out.js";
import type { ReconcilerDeps } from "../reconcile/reconciler.js";
import type { CommandsDeps } from "../slack/commands/feature.js";
import type { StatusDeps } from "../status/gather-status.js";
import { Spool } from "../webhooks/spool.js";
import { scheduleLine } from "../weekly/describe-schedule.js";
import type { WeeklyCommandDeps } from "../weekly/command.js";
import type { WeeklyRunDeps } from "../weekly/run-weekly.js";
import type { Services } from "./build-services.js";
import { digestIntake } from "../digest/intake.js";
import { syncChannelDigest } from "../digest/sync-channel-digest.js";
import type { DigestFlushDeps } from "../digest/flush.js";
import type { DigestCommandDeps } from "../slack/commands/digest.js";
import { jobId, QUEUE_NAMES } from "../jobs/queues.js";
import { countingIntake, intakeLength } from "../jobs/intake-pump.js";
import { stateKeys } from "../store/keys.js";
import { isCluster } from "../store/redis.js";
import type { AlertsEvalDeps } from "../alerts/evaluate.js";
import type { AlertsCommandDeps } from "../slack/commands/alerts.js";

/*
 * Each feature's narrow dependencies, cut from the process's services. Tests build features
 * and their parts (a Reconciler, gatherStatus) from a harness's services through these too.
 */

/** Three Slack calls at most under the posting lock, 10 s timeout each, plus a margin. */
const DIGEST_LOCK_TTL_MS = 45_000;

export function routeDeps(s: Services): RouteDeps {
  return {
    subscriptions: s.subscriptions,
    refs: s.refs,
    lookup: s.insight.lookup,
    slackQueue: () => s.queues.slack,
    refreshQueue: () => s.queues.refresh,
    ops: s.ops,
    logger: s.logger,
    ...(s.tuning.refreshDelaysMs ? { refreshDelaysMs: s.tuning.refreshDelaysMs } : {}),
    digest: digestIntake({ pending: s.digest.pending, schedules: s.digest.schedules }),
  };
}

export function digestCommandDeps(s: Services): DigestCommandDeps {
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

export function digestFlushDeps(s: Services): DigestFlushDeps {
  return {
    redis: s.redis,
    keys: s.keys,
    pending: s.digest.pending,
    subscriptions: s.subscriptions,
    schedules: s.digest.schedules,
    timeZoneOf: s.digest.timeZoneOf,
    slack: s.slack,
    throttle: s.throttle,
    ops: s.ops,
    logger: s.logger,
  };
}

export function messageRouteDeps(s: Services): MessageRouteDeps {
  return {
    subscriptions: s.subscriptions,
    refs: s.refs,
    replies: s.replies,
    slackQueue: () => s.queues.slack,
    ...(s.tuning.countsDebounceMs ? { countsDebounceMs: s.tuning.countsDebounceMs } : {}),
    ...(s.tuning.repliesBatchMs ? { repliesBatchMs: s.tuning.repliesBatchMs } : {}),
  };
}

export function slackOutDeps(s: Services): SlackOutDeps {
  return {
    redis: s.redis,
    keys: s.keys,
    refs: s.refs,
    triage: s.triage,
    replies: s.replies,
    slackQueue: () => s.queues.slack,
    // Fresh: the card should show the counts of now, the same the listing gives `threads`.
    counts: async (groupId, threadId) => {
      const t = await s.insight.lookup.find(groupId, threadId, { fresh: true });
      if (!t) return undefined;
      const participants = (t as { participantCount?: unknown }).participantCount;
      return {
        messageCount: t.messageCount,
        participantCount: typeof participants === "number" ? participants : undefined,
      };
    },
    throttle: s.throttle,
    subscriptions: s.subscriptions,
    ops: s.ops,
    sender: s.sender,
    restarts: s.restarts,
    logger: s.logger,
    lockTtlMs: s.tuning.digestLockTtlMs ?? DIGEST_LOCK_TTL_MS,
  };
}

export function statusDeps(s: Services): StatusDeps {
  return {
    health: s.health,
    subscriptions: s.subscriptions,
    ops: s.ops,
    // In a workspace: its own jobs only (status shows that workspace alone). The deployment's
    // view counts the intake's deliveries as waiting ones.
    queues: () =>
      s.workspaceStatus?.queues() ??
      countingIntake(s.queues.all(), s.queues.namesOf(QUEUE_NAMES.deliveries)[0] ?? "", () =>
        intakeLength(s.redis, s.keys),
      ),
    insight: s.insight.client,
    insightConnected: () => s.workspaceStatus?.insightConnected ?? true,
    ...(s.workspaceStatus ? {} : { overdue: () => s.overdue.look() }),
    // A fresh reader each time: the spool's segments are shared by every process on SPOOL_DIR.
    spoolSize: () => new Spool(s.workspaceStatus?.spoolDir ?? s.config.spoolDir, s.logger).sizeOnDisk(),
    reportInsightError: s.reportInsightError,
    logger: s.logger,
  };
}

export function commandsDeps(s: Services): CommandsDeps {
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
    ...(s.homeTop ? { homeTop: s.homeTop } : {}),
  };
}

/** Card edits and DMs that button presses ask for, through the outbound queue and its throttle. */
export function cardEffects(s: Services): CardEffects {
  return {
    async refresh(channelId, threadId, key) {
      await s.queues.slack.add(
        "card",
        { kind: "card", channelId, threadId, reason: "triage" },
        { jobId: jobId("card", channelId, threadId, key) },
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

export function weeklyCommandDeps(s: Services): WeeklyCommandDeps {
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

export function weeklyRunDeps(s: Services): WeeklyRunDeps {
  return {
    client: s.insight.client,
    logger: s.logger,
    redis: s.redis,
    runKey: s.keys.weeklyRun,
    subscriptions: s.subscriptions,
    slack: s.slack,
    throttle: s.throttle,
    ops: s.ops,
    reportInsightError: s.reportInsightError,
    handled: (channelId, threadIds) => s.triage.handledAmong(channelId, threadIds),
  };
}

export function reconcilerDeps(s: Services): ReconcilerDeps {
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

export function alertsCommandDeps(s: Services): AlertsCommandDeps {
  return { insight: s.insight.client, reportInsightError: s.reportInsightError, alerts: s.alerts };
}

export function alertsEvalDeps(s: Services): AlertsEvalDeps {
  return {
    settings: s.alerts,
    insight: s.insight.client,
    refs: s.refs,
    redis: s.redis,
    keys: s.keys,
    slack: s.slack,
    throttle: s.throttle,
    ops: s.ops,
    reportInsightError: s.reportInsightError,
    logger: s.logger,
  };
}
