import { createServer, type Server } from "node:http";
import { Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Config } from "./config.js";
import { healthRouter } from "./http/health-routes.js";
import { requestIdRouter } from "./http/request-id.js";
import { InsightClient } from "./insight/client.js";
import { isInsightError } from "./insight/errors.js";
import { ChannelThrottle } from "./jobs/channel-throttle.js";
import { OpsNotifier } from "./jobs/ops-notifier.js";
import { processDelivery } from "./jobs/process-delivery.js";
import {
  cappedBackoff,
  createQueues,
  QUEUE_NAMES,
  type DeliveryJob,
  type Queues,
  type RefreshJob,
  type SlackJob,
} from "./jobs/queues.js";
import { routeThreadEvent, type RouteDeps } from "./jobs/route-thread-event.js";
import { processSlackJob, type SlackSender } from "./jobs/slack-out.js";
import { ThreadLookup } from "./jobs/thread-lookup.js";
import { WorkerHealth } from "./jobs/worker-health.js";
import type { Logger } from "./log.js";
import { createMetrics, type Metrics } from "./metrics.js";
import { MODULES, type RelayModule } from "./modules.js";
import { createSlackApp, type SlackAppParts } from "./slack/app.js";
import { createSlackApi, type SlackApi } from "./slack/client.js";
import { CommandRouter } from "./slack/commands/router.js";
import { createSlackSender } from "./slack/slack-sender.js";
import { DeliveryHealthStore } from "./store/delivery-health.js";
import { stateKeys, type StateKeys } from "./store/keys.js";
import { MessageRefStore } from "./store/message-refs.js";
import { createRedis } from "./store/redis.js";
import { SubscriptionStore } from "./store/subscriptions.js";
import { DeliveryIngest } from "./webhooks/ingest.js";
import { DeliveryRecorder } from "./webhooks/delivery-recorder.js";
import { webhookHandler } from "./webhooks/route.js";
import { Spool } from "./webhooks/spool.js";
import { closeEveryQueue, everyQueue } from "./jobs/every-queue.js";

/** Knobs tests turn; production uses the defaults. */
export interface RuntimeTuning {
  /** BullMQ lock duration: how soon a killed worker's job is picked up again. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  refreshDelaysMs?: number[];
  channelGapMs?: number;
  lookupCacheMs?: number;
  insightTimeoutMs?: number;
  insightRetry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number; maxTotalMs?: number };
  workerConcurrency?: { deliveries?: number; slack?: number; refresh?: number };
  /** How long a (channel, thread) posting lock outlives a killed worker. */
  digestLockTtlMs?: number;
}

/** Everything the roles share, built once from the config. */
export interface AppServices {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  redis: Redis;
  keys: StateKeys;
  queues: Queues;
  subscriptions: SubscriptionStore;
  refs: MessageRefStore;
  health: DeliveryHealthStore;
  ops: OpsNotifier;
  throttle: ChannelThrottle;
  insight: { client: InsightClient; lookup: ThreadLookup };
  slack: SlackApi;
  sender: SlackSender;
  /** Alerts operators when an Insight call failed for a reason they must fix (401). */
  reportInsightError(err: unknown): Promise<void>;
  /** Whether this process's workers are processing; set when the worker role runs here. */
  workerHealth?: WorkerHealth;
  /** One line about the channel's weekly schedule, when the weekly module is present. */
  describeSchedule?: (channelId: string) => Promise<string | undefined>;
  tuning: RuntimeTuning;
}

export function createServices(config: Config, logger: Logger, tuning: RuntimeTuning = {}): AppServices {
  const metrics = createMetrics({ defaultMetrics: true });
  // Commands, stores and workers' producers wait through short Redis blips; only the webhook
  // receiver fails fast (its own connection, in startRoles) because it has a spool to fall back on.
  const redis = createRedis(config.redis.url, "shared", logger);
  const keys = stateKeys(config.redis.prefix);
  const queues = createQueues(redis, config.redis.prefix, logger);
  const client = new InsightClient({
    baseUrl: config.insight.baseUrl,
    apiKey: config.insight.apiKey,
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
  const ops = new OpsNotifier(redis, keys, () => queues.slack, config.opsChannelId, logger);
  const services: AppServices = {
    config,
    logger,
    metrics,
    redis,
    keys,
    queues,
    subscriptions: new SubscriptionStore(redis, keys),
    refs: new MessageRefStore(redis, keys),
    health: new DeliveryHealthStore(redis, keys),
    ops,
    throttle: new ChannelThrottle(redis, keys, tuning.channelGapMs),
    insight: { client, lookup: new ThreadLookup(client, { cacheMs: tuning.lookupCacheMs }) },
    slack,
    sender: createSlackSender(slack),
    async reportInsightError(err) {
      if (isInsightError(err) && err.code === "unauthorized")
        await ops.insightUnauthorized().catch(() => undefined);
    },
    tuning,
  };
  return services;
}

export interface RunningRoles {
  server?: Server;
  port?: number;
  slackApp?: SlackAppParts;
  commands?: CommandRouter;
  ingest?: DeliveryIngest;
  workers: Worker[];
  workerHealth?: WorkerHealth;
  stop(): Promise<void>;
}

/** Starts the web role, the workers and the scheduler, as `config.role` says. */
export async function startRoles(
  services: AppServices,
  modules: RelayModule[] = MODULES,
): Promise<RunningRoles> {
  const { config, logger } = services;
  for (const m of modules) m.init?.(services);
  const stopSchedulers: (() => Promise<void>)[] = [];
  const closers: (() => Promise<void>)[] = [];
  const runs = (r: "web" | "worker" | "scheduler") => config.role === "all" || config.role === r;
  const running: RunningRoles = { workers: [], stop: async () => undefined };
  const blocking: Redis[] = [];
  const tuning = services.tuning;

  if (runs("worker")) {
    const conn = createRedis(config.redis.url, "blocking", logger);
    blocking.push(conn);
    const common = {
      connection: conn,
      prefix: config.redis.prefix,
      ...(tuning.lockDurationMs ? { lockDuration: tuning.lockDurationMs } : {}),
      ...(tuning.stalledIntervalMs ? { stalledInterval: tuning.stalledIntervalMs } : {}),
    };
    const routeDeps: RouteDeps = {
      subscriptions: services.subscriptions,
      lookup: services.insight.lookup,
      slackQueue: () => services.queues.slack,
      refreshQueue: () => services.queues.refresh,
      ops: services.ops,
      logger,
      ...(tuning.refreshDelaysMs ? { refreshDelaysMs: tuning.refreshDelaysMs } : {}),
    };
    const deliveries = new Worker<DeliveryJob>(
      QUEUE_NAMES.deliveries,
      (job) => processDelivery(job, { ...routeDeps, health: services.health }),
      { ...common, concurrency: tuning.workerConcurrency?.deliveries ?? 10 },
    );
    const refresh = new Worker<RefreshJob>(
      QUEUE_NAMES.refresh,
      // Any listing read after this refresh fell due serves it: refreshes that fall due together share one read.
      (job) =>
        routeThreadEvent(job.data.event, routeDeps, {
          notBeforeMs: job.timestamp + (job.opts.delay ?? 0),
          attempt: job.data.attempt,
        }),
      { ...common, concurrency: tuning.workerConcurrency?.refresh ?? 4 },
    );
    const slack = new Worker<SlackJob>(
      QUEUE_NAMES.slack,
      (job, token) =>
        processSlackJob(job, token, {
          redis: services.redis,
          keys: services.keys,
          refs: services.refs,
          throttle: services.throttle,
          subscriptions: services.subscriptions,
          ops: services.ops,
          sender: services.sender,
          logger,
          // Three Slack calls at most under the lock, 10 s timeout each, plus a margin.
          lockTtlMs: tuning.digestLockTtlMs ?? 45_000,
        }),
      {
        ...common,
        concurrency: tuning.workerConcurrency?.slack ?? 8,
        settings: { backoffStrategy: (n) => cappedBackoff(n) },
      },
    );
    for (const w of [deliveries, refresh, slack]) {
      w.on("failed", (job, err) => {
        services.metrics.jobs.inc({ queue: w.name, outcome: "failed" });
        logger.warn(
          { queue: w.name, jobId: job?.id, attempts: job?.attemptsMade, err: err.message },
          "job failed",
        );
      });
      w.on("completed", () => services.metrics.jobs.inc({ queue: w.name, outcome: "completed" }));
      w.on("error", (err) => logger.warn({ queue: w.name, err: err.message }, "worker error"));
    }
    running.workers.push(deliveries, refresh, slack);
    for (const m of modules) running.workers.push(...((await m.startWorkers?.(services)) ?? []));
    running.workerHealth = services.workerHealth = new WorkerHealth([
      { worker: deliveries, queue: () => services.queues.deliveries },
      { worker: refresh, queue: () => services.queues.refresh },
      { worker: slack, queue: () => services.queues.slack },
    ]);
  }

  if (runs("scheduler")) {
    for (const m of modules) {
      const stop = await m.startScheduler?.(services);
      if (stop) stopSchedulers.push(stop);
    }
  }

  if (runs("web")) {
    const spool = new Spool(config.spoolDir, logger);
    const receiverRedis = createRedis(config.redis.url, "command", logger);
    // Give the connection a moment before listening, so the first deliveries are recorded
    // rather than spooled; a Redis that is down does not hold up the start.
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(done, 2_000);
      if (receiverRedis.status === "ready") done();
      else receiverRedis.once("ready", done);
    });
    const receiverQueues = createQueues(receiverRedis, config.redis.prefix, logger);
    closers.push(async () => {
      await receiverQueues.close().catch(() => undefined);
      receiverRedis.disconnect();
    });
    const recorder = new DeliveryRecorder(
      receiverRedis,
      services.keys,
      receiverQueues,
      services.health,
      services.metrics,
      logger,
    );
    const ingest = new DeliveryIngest(recorder, spool, logger, services.metrics);
    running.ingest = ingest;
    // Replay at start-up and whenever Redis comes back.
    const replay = () =>
      void ingest.replay().catch((err: unknown) => logger.warn({ err: String(err) }, "spool replay failed"));
    receiverRedis.on("ready", replay);

    const commands = new CommandRouter(logger);
    for (const m of modules) m.commands?.(commands, services);
    running.commands = commands;
    const slackApp = createSlackApp({
      services,
      commands,
      routes: [
        requestIdRouter(logger),
        healthRouter({
          redis: services.redis,
          metrics: services.metrics,
          workers: running.workerHealth,
          refreshGauges: () => refreshQueueGauges(services, spool),
        }),
        ...modules.flatMap((m) => m.routes?.(services) ?? []),
      ],
      extend: (app) => {
        for (const m of modules) m.interactions?.(app, services);
      },
    });
    running.slackApp = slackApp;
    // The webhook route answers before Express; everything else is Express (Bolt included).
    const webhooks = webhookHandler({
      secret: config.webhookSecret,
      ingest,
      logger,
      metrics: services.metrics,
    });
    const server = createServer((req, res) => {
      if (!webhooks(req, res)) slackApp.http(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, () => resolve());
    });
    // Slack and the webhook sender both hold connections open; keep them, but not forever.
    server.keepAliveTimeout = 65_000;
    running.server = server;
    const addr = server.address();
    running.port = typeof addr === "object" && addr ? addr.port : config.port;
    logger.info({ port: running.port }, "web role listening");
  }

  running.stop = async () => {
    for (const stop of stopSchedulers) await stop().catch(() => undefined);
    // Stop accepting, then drop idle and half-read connections (a refused oversized body
    // keeps its socket open), so close() can finish.
    const closed = new Promise<void>((resolve) =>
      running.server ? running.server.close(() => resolve()) : resolve(),
    );
    running.server?.closeIdleConnections();
    running.server?.closeAllConnections();
    await closed;
    await Promise.all(running.workers.map((w) => w.close()));
    running.ingest?.close();
    for (const close of closers) await close();
    for (const c of blocking) c.disconnect();
  };
  return running;
}

async function refreshQueueGauges(services: AppServices, spool: Spool): Promise<void> {
  services.metrics.spoolSize.set(await spool.sizeOnDisk());
  for (const q of everyQueue(services)) {
    const counts = await q.getJobCounts("waiting", "active", "delayed", "failed");
    for (const [state, n] of Object.entries(counts))
      services.metrics.queueDepth.set({ queue: q.name, state }, n);
  }
}

/** Closes every connection the services opened. */
export async function closeServices(services: AppServices): Promise<void> {
  await services.queues.close().catch(() => undefined);
  await closeEveryQueue(services);
  await services.insight.client.close().catch(() => undefined);
  services.redis.disconnect();
}
