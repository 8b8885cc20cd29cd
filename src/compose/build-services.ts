import type { Queue } from "bullmq";
import type { Config } from "../config.js";
import { InsightClient } from "../insight/client.js";
import type { WorkerTuning } from "../jobs/create-worker.js";
import { OverdueJobs } from "../jobs/overdue-jobs.js";
import { createQueues, queueLayout, type Queues } from "../jobs/queues.js";
import { ThreadLookup } from "../jobs/thread-lookup.js";
import { debugOnFailure, type Logger } from "../log.js";
import { createMetrics, type Metrics } from "../metrics.js";
import { OpsNotifier } from "../ops/ops-notifier.js";
import { insightErrorReporter, type ReportInsightError } from "../ops/report-insight-error.js";
import { createSlackApi, type SlackApi } from "../slack/client.js";
import type { ChannelThrottle } from "../slack/outbound/channel-throttle.js";
import { stateStores } from "./state-stores.js";
import { MethodHold } from "../slack/outbound/method-hold.js";
import { createSlackSender, type SlackSender } from "../slack/outbound/slack-sender.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import { installKeys, stateKeys, type StateKeys } from "../store/keys.js";
import type { MessageRefStore } from "../store/message-refs.js";
import type { PendingReplies } from "../store/pending-replies.js";
import type { TriageStore } from "../store/triage.js";
import { createRedis, isCluster } from "../store/redis.js";
import { RedisRestarts } from "../store/redis-restarts.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import type { RedisClient as Redis } from "../store/redis.js";
import type { KnownBlock } from "../slack/render/known-blocks.js";
import type { WeeklySchedules } from "../weekly/schedules.js";
import type { PendingDigestStore } from "../digest/pending-store.js";
import type { DigestSchedules } from "../digest/schedules.js";
import type { AlertSettingsStore } from "../alerts/settings-store.js";
import { Sealer } from "../workspaces/encryption.js";
import { RedisInstallationStore } from "../workspaces/installation-store.js";
import { ConnectionStore } from "../workspaces/connection-store.js";
import { RedisStateStore } from "../slack/install/state-store.js";

/** Knobs tests turn; production uses the defaults. */
export interface RuntimeTuning extends WorkerTuning {
  refreshDelaysMs?: number[];
  channelGapMs?: number;
  lookupCacheMs?: number;
  insightTimeoutMs?: number;
  insightRetry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number; maxTotalMs?: number };
  workerConcurrency?: { deliveries?: number; slack?: number; refresh?: number };
  /** How long a (channel, thread) posting lock outlives a killed worker. */
  digestLockTtlMs?: number;
  /** At most one counts edit per card per this long (chatmessage-crud). */
  countsDebounceMs?: number;
  /** New messages within this long go as one reply under the card (`--replies on`). */
  repliesBatchMs?: number;
  /** Between two evaluations of the alerts; default 5 minutes. */
  alertsIntervalMs?: number;
  /** Between two looks of the health watch (workers that cannot fetch, a growing spool, a stalled intake); default 15 s. */
  healthWatchMs?: number;
  /** Shards of the deliveries, slack-out and refresh queues; default 4 on a cluster, 1 on one Redis. */
  queueShards?: number;
  /** How long the intake pump's lease outlives a killed process (jobs/intake-pump.ts); default 10 s. */
  intakeLeaseMs?: number;
  /** How long a delivery may sit at the intake's head before the health watch alerts; default 60 s. */
  intakeStalledMs?: number;
}

/**
 * The clients and stores of one process, built once from the config. Only the composition
 * root holds this: each feature gets the few members it uses (features.ts, narrow-deps.ts).
 */
export interface Services {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Stores and commands share it (auto-pipelined); the receiver and each worker have their own. */
  redis: Redis;
  /** The queues' producers (BullMQ's scripts live on it). */
  queueRedis: Redis;
  keys: StateKeys;
  queues: Queues;
  subscriptions: SubscriptionStore;
  refs: MessageRefStore;
  triage: TriageStore;
  replies: PendingReplies;
  health: DeliveryHealthStore;
  schedules: WeeklySchedules;
  /** Digest mode: the channels' pending sets and their period job schedulers. */
  digest: {
    pending: PendingDigestStore;
    schedules: DigestSchedules;
    timeZoneOf(channelId: string): Promise<string>;
  };
  alerts: AlertSettingsStore;
  ops: OpsNotifier;
  /** Jobs no worker moves, in every queue: readiness, the health watch, status, /metrics. */
  overdue: OverdueJobs;
  /** What a Redis restart may have lost (the digest path looks in Slack for it). */
  restarts: RedisRestarts;
  throttle: ChannelThrottle;
  insight: { client: InsightClient; lookup: ThreadLookup };
  slack: SlackApi;
  sender: SlackSender;
  reportInsightError: ReportInsightError;
  tuning: RuntimeTuning;
  /** Multi-workspace mode only: installs and OAuth states (src/workspaces/, slack/install/). */
  installs?: {
    installations: RedisInstallationStore;
    connections: ConnectionStore;
    states: RedisStateStore;
    sealer: Sealer;
  };
  /** Set on one workspace's services (compose/workspaces.ts). */
  workspaceId?: string;
  /** What `status` reads in a workspace: its own jobs and its own spool (compose/workspaces.ts). */
  workspaceStatus?: {
    queues(): readonly Pick<Queue, "name" | "getJobCounts" | "getWorkersCount">[];
    readonly spoolDir: string;
    /** An admin has connected the workspace's Insight service (Connect on Home). */
    readonly insightConnected: boolean;
  };
  /** Multi-workspace mode: the Home tab's connection section (Connect). */
  homeTop?: (userId: string) => Promise<KnownBlock[]>;
}

export function buildServices(config: Config, logger: Logger, tuning: RuntimeTuning = {}): Services {
  const metrics = createMetrics({ defaultMetrics: true });
  // Commands, stores and producers wait through short Redis blips; only the webhook receiver
  // fails fast (its own connection, webhooks/create-receiver.ts) because it has a spool to fall back on.
  // Stores send the commands issued in one event-loop turn in one write (a digest's reads, its
  // writes after the post): each write to the socket costs more CPU than the command itself.
  const redis = createRedis(config.redis, "shared", logger, { enableAutoPipelining: true });
  // BullMQ defines about forty scripts on its connection, which every auto-pipeline would copy:
  // the queues keep a connection of their own, without it.
  const queueRedis = createRedis(config.redis, "shared", logger);
  const cluster = isCluster(redis);
  const keys = stateKeys(config.redis.prefix, { cluster });
  const queues = createQueues(
    queueRedis,
    config.redis.prefix,
    logger,
    queueLayout(cluster, tuning.queueShards),
  );
  const client = new InsightClient({
    // Multi-workspace mode without INSIGHT_BASE_URL: each workspace brings its own; this
    // deployment-level client is never the one a workspace's work uses, and fails fast.
    baseUrl: config.insight.baseUrl || "http://not-connected.invalid",
    apiKey: config.insight.apiKey || "not-connected",
    apiVersion: config.insight.apiVersion,
    searchParam: config.insight.searchParam,
    logger,
    metrics,
    ...(tuning.insightTimeoutMs ? { timeoutMs: tuning.insightTimeoutMs } : {}),
    ...(tuning.insightRetry ? { retry: tuning.insightRetry } : {}),
  });
  const slack = createSlackApi({
    token: config.slack.botToken,
    apiUrl: config.slack.apiUrl,
    logger,
    metrics,
  });
  const stores = stateStores({
    redis,
    keys,
    queues,
    defaultTimezone: config.weekly.defaultTimezone,
    channelGapMs: tuning.channelGapMs,
  });
  const mw = config.multiWorkspace;
  // Many workspaces: no token of the deployment's own may post, and a job without a workspace
  // would run once per installed workspace (another customer's): deployment alerts are logged.
  const ops = new OpsNotifier(
    redis,
    keys,
    () => queues.slack,
    mw ? undefined : config.opsChannelId,
    logger,
    undefined,
    // When Redis will not take an alert (down, or refusing writes at maxmemory).
    (channel, text) => slack.call("chat.postMessage", { channel, text }),
  );
  const ik = installKeys(config.redis.prefix, { cluster });
  const sealer = mw ? new Sealer(mw.encryptionKey, mw.previousEncryptionKeys) : undefined;
  return {
    config,
    logger,
    metrics,
    redis,
    queueRedis,
    keys,
    queues,
    ...stores,
    ops,
    overdue: new OverdueJobs(
      { redis, queues: () => queues.all(), gauge: metrics.overdueJobs },
      tuning.overdueAfterMs ? { boundMs: tuning.overdueAfterMs } : {},
    ),
    restarts: new RedisRestarts({ redis, queues: () => queues.all() }),
    insight: { client, lookup: new ThreadLookup(client, { cacheMs: tuning.lookupCacheMs }) },
    slack,
    sender: createSlackSender(slack, new MethodHold(redis, keys)),
    reportInsightError: insightErrorReporter(ops),
    tuning,
    ...(mw && sealer
      ? {
          installs: {
            installations: new RedisInstallationStore(redis, ik, sealer),
            connections: new ConnectionStore(redis, ik, sealer),
            states: new RedisStateStore(redis, ik.oauthState, mw.stateSecret),
            sealer,
          },
        }
      : {}),
  };
}

/** Closes every connection the services opened. */
export async function closeServices(s: Services): Promise<void> {
  const failed = debugOnFailure(s.logger, "closing services");
  await s.queues.close().catch(failed);
  await s.insight.client.close().catch(failed);
  s.redis.disconnect();
  s.queueRedis.disconnect();
}
