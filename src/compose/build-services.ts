import type { Config } from "../config.js";
import type { RuntimeTuning } from "./runtime-tuning.js";
import { insightClientOf } from "./insight-client.js";

export type { RuntimeTuning };
import type { InsightClient } from "../insight/client.js";
import { createQueues, type Queues } from "../jobs/queue-registry.js";
import { queueLayout } from "../jobs/queue-layout.js";
import { ThreadLookup } from "../jobs/thread-lookup.js";
import { ThreadMessages } from "../jobs/thread-messages.js";
import { debugOnFailure, type Logger } from "../log.js";
import { createMetrics, type Metrics } from "../metrics.js";
import { OpsNotifier } from "../ops/ops-notifier.js";
import { createSlackApi, type SlackApi } from "../slack/client.js";
import { installKeys, stateKeys, type StateKeys } from "../store/keys.js";
import { createRedis, isCluster } from "../store/redis.js";
import type { LegacyRefs } from "../store/message-refs.js";
import { RedisRestarts } from "../store/redis-restarts.js";
import { OverdueJobs } from "../jobs/overdue-jobs.js";
import type { RedisClient as Redis } from "../store/redis.js";
import { Sealer } from "../workspaces/encryption.js";
import { RedisInstallationStore } from "../workspaces/installation-store.js";
import { ConnectionStore } from "../workspaces/connection-store.js";
import { RedisStateStore } from "../slack/install/state-store.js";
import { SINGLE_WORKSPACE_ID } from "../workspaces/workspace-id.js";
import { workspaceQueues } from "../workspaces/workspace-queues.js";

/**
 * The deployment's clients, built once from the config: connections, the queue registry,
 * metrics, the installation stores (many workspaces), and the env tokens' clients (the single
 * workspace's). Only the composition root holds this: each workspace's services are built over
 * it (workspace-services.ts) and each feature gets the few members it uses (narrow-deps.ts).
 */
export interface Services {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  /** Stores and commands share it (auto-pipelined); the receiver and each worker have their own. */
  redis: Redis;
  /** The queues' producers (BullMQ's scripts live on it). */
  queueRedis: Redis;
  /** The deployment's own keys (the intake; the single workspace's state). */
  keys: StateKeys;
  queues: Queues;
  /** The deployment's operational alerts (the health watch): OPS_CHANNEL_ID with one workspace, logged with many. */
  ops: OpsNotifier;
  /** The env key's Insight client (the single workspace's); with many workspaces each brings its own. */
  insight: { client: InsightClient; lookup: ThreadLookup; messages: ThreadMessages };
  /** Jobs no worker moves, in every queue: readiness, the health watch, status, /metrics. */
  overdue: OverdueJobs;
  /** What a Redis restart may have lost (the digest path looks in Slack for it). */
  restarts: RedisRestarts;
  /** Whether card refs of the layout before issue 38 may remain (cleared by the start migration). */
  legacyRefs: LegacyRefs;
  /** The env token's Slack client (the single workspace's). */
  slack: SlackApi;
  tuning: RuntimeTuning;
  /** Multi-workspace mode only: installs and OAuth states (src/workspaces/, slack/install/). */
  installs?: {
    installations: RedisInstallationStore;
    connections: ConnectionStore;
    states: RedisStateStore;
    sealer: Sealer;
  };
}

export function buildServices(
  config: Config,
  logger: Logger,
  tuning: RuntimeTuning = {},
  /** `defaultMetrics: false`: the process's own figures (CPU, memory, event-loop lag) are another thread's. */
  o: { defaultMetrics?: boolean } = {},
): Services {
  const metrics = createMetrics({ defaultMetrics: o.defaultMetrics ?? true });
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
  // Multi-workspace mode without INSIGHT_BASE_URL: each workspace brings its own; this
  // deployment-level client is never the one a workspace's work uses, and fails fast.
  const client = insightClientOf({ config, metrics, tuning }, logger, {
    baseUrl: config.insight.baseUrl || "http://not-connected.invalid",
    apiKey: config.insight.apiKey || "not-connected",
  });
  const slack = createSlackApi({
    token: config.slack.botToken,
    apiUrl: config.slack.apiUrl,
    logger,
    metrics,
  });
  const mw = config.multiWorkspace;
  // Many workspaces: no token of the deployment's own may post, and a job without a workspace
  // would run once per installed workspace (another customer's): deployment alerts are logged.
  // Its notices go out as the single workspace's Slack jobs (with many workspaces there is no
  // deployment channel to post to).
  const notices = workspaceQueues(queues, SINGLE_WORKSPACE_ID, { ownIds: false }).slack;
  const ops = new OpsNotifier(
    redis,
    keys,
    () => notices,
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
    ops,
    overdue: new OverdueJobs(
      { redis, queues: () => queues.all(), gauge: metrics.overdueJobs },
      tuning.overdueAfterMs ? { boundMs: tuning.overdueAfterMs } : {},
    ),
    restarts: new RedisRestarts({ redis, queues: () => queues.all() }),
    legacyRefs: { mayRemain: true },
    insight: {
      client,
      lookup: new ThreadLookup(client, { cacheMs: tuning.lookupCacheMs }),
      messages: new ThreadMessages(client),
    },
    slack,
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
