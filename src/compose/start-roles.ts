import { createServer, type Server } from "node:http";
import type { Worker } from "bullmq";
import { secretsOf } from "../config.js";
import type { Feature } from "../feature.js";
import { healthRouter } from "../http/health-routes.js";
import { requestIdRouter } from "../http/request-id.js";
import { startWorkers, type StartedWorkers } from "../jobs/create-worker.js";
import { intakeHead, intakeLength, IntakePump } from "../jobs/intake-pump.js";
import type { WorkerHealth } from "../jobs/worker-health.js";
import { debugOnFailure } from "../log.js";
import { startHealthWatch } from "../ops/health-watch.js";
import { createRedis, withTimeout } from "../store/redis.js";
import { createSlackApp, type SlackAppParts } from "../slack/app.js";
import { CommandRouter } from "../slack/commands/router.js";
import { oauthReceiverOptions } from "../slack/install/oauth-options.js";
import type { Subcommand } from "../slack/commands/types.js";
import { openReceiver, type Receiver } from "../webhooks/create-receiver.js";
import { webhookHandler } from "../webhooks/route.js";
import type { Services } from "./build-services.js";
import { buildFeatures } from "./features.js";
import { reassertSchedules } from "./reassert-schedules.js";
import { connectionBlocks, registerConnect } from "../slack/actions/connect-actions.js";
import { currentWorkspaceId, scopedServices, type Workspaces } from "./workspaces.js";
import { registerLifecycle } from "../workspaces/lifecycle.js";
import { refreshWorkspaceDepth } from "../workspaces/queue-depth.js";
import { stampQueue } from "../workspaces/stamped-queue.js";
import {
  connectDeps,
  groupFollowed,
  receiptBooks,
  lifecycleDeps,
  multiWorkspaces,
  workspaceIngests,
  workspaceRows,
} from "./workspace-wiring.js";

export interface RunningRoles {
  server?: Server;
  port?: number;
  slackApp?: SlackAppParts;
  commands?: CommandRouter;
  receiver?: Receiver;
  workers: Worker[];
  workerHealth?: WorkerHealth;
  stop(): Promise<void>;
}

type Role = "web" | "worker" | "scheduler";

const installs = (s: Services) => {
  if (!s.installs) throw new Error("multi-workspace mode needs the installation store");
  return s.installs;
};

/**
 * Starts the roles `config.role` asks for: the features' workers of those roles (through the
 * one worker factory), the scheduler's repeating work, then the web role (receiver, Bolt,
 * health, metrics, the features' routes) once readiness can see every worker started here.
 */
export async function startRoles(s: Services, given?: readonly Feature<Subcommand>[]): Promise<RunningRoles> {
  const { config, logger } = s;
  // Many workspaces: features act for the workspace of each request or job (compose/workspaces.ts).
  const workspaces = s.installs ? multiWorkspaces(s) : undefined;
  const features =
    given ??
    buildFeatures(
      workspaces && s.installs
        ? {
            ...scopedServices(s),
            homeTop: (userId) =>
              connectionBlocks(connectDeps(s, installs(s), workspaces), currentWorkspaceId() ?? "", userId),
          }
        : s,
      workspaces
        ? {
            // The deployment's view: every queue and every workspace, outside any one workspace.
            admin: {
              queues: () => s.queues.all(),
              workspaces: () => workspaceRows(s, installs(s), workspaces),
            },
            sharedQueues: s.queues,
          }
        : {},
    );
  const runs = (r: Role) => config.role === "all" || config.role === r;
  const stopSchedulers: (() => Promise<void>)[] = [];

  // One worker per shard of a sharded queue (jobs/queues.ts): every shard has a consumer.
  const specs = features
    .flatMap((f) => f.workers ?? [])
    .filter((w) => runs(w.role ?? "worker"))
    .flatMap((w) => s.queues.namesOf(w.queue).map((queue) => ({ ...w, queue })))
    .map((w) => (workspaces ? { ...w, processor: workspaces.wrap(w.processor, logger) } : w));
  let started: StartedWorkers | undefined;
  if (specs.length > 0) {
    started = startWorkers(
      specs,
      {
        redisUrl: config.redis.url,
        clusterNodes: config.redis.clusterNodes,
        prefix: config.redis.prefix,
        logger,
        metrics: s.metrics,
        tuning: s.tuning,
      },
      (name) => s.queues.byName(name),
    );
  }

  // The worker role moves acknowledged deliveries from the intake into the deliveries queue.
  const pump = runs("worker")
    ? new IntakePump({
        redis: s.redis,
        blocking: createRedis(
          { url: config.redis.url, clusterNodes: config.redis.clusterNodes },
          "blocking",
          logger,
        ),
        keys: s.keys,
        deliveriesFor: (workspaceId) =>
          workspaceId ? stampQueue(s.queues.deliveries, workspaceId) : s.queues.deliveries,
        receiptsFor: receiptBooks(s.redis, config.redis.prefix),
        metrics: s.metrics,
        followed: groupFollowed(s.redis, config.redis.prefix, { multiWorkspace: Boolean(workspaces) }),
        unfollowed: s.metrics.unfollowedDeliveries,
        logger,
        ...(s.tuning.intakeLeaseMs ? { leaseMs: s.tuning.intakeLeaseMs } : {}),
      }).start()
    : undefined;

  if (runs("scheduler")) {
    for (const f of features) {
      const stop = await f.startScheduler?.();
      if (stop) stopSchedulers.push(stop);
    }
    await reassertSchedules(features, logger, workspaces);
  }

  const running: RunningRoles = {
    workers: started?.workers ?? [],
    ...(started ? { workerHealth: started.health } : {}),
    stop: async () => undefined,
  };
  if (runs("web")) await startWeb(s, features, running, workspaces);
  // Workers that cannot fetch, a spool that only grows while Redis answers, or deliveries that
  // do not leave the intake go to the ops channel.
  if (running.workerHealth || running.receiver) {
    const { workerHealth, receiver } = running;
    const stopWatch = startHealthWatch(
      {
        sample: async () => ({
          workers: workerHealth ? await workerHealth.probe() : undefined,
          redisAnswers: await withTimeout(s.redis.ping(), 900, "Redis").then(
            () => true,
            () => false,
          ),
          spool: receiver ? await receiver.spool.sizeOnDisk() : undefined,
          // Every process looks: with no worker role running anywhere, the web role is the one that can tell.
          intake: await withTimeout(intakeHead(s.redis, s.keys), 900, "Redis").catch(() => undefined),
          overdue: await withTimeout(s.overdue.look(), 900, "Redis").catch(() => undefined),
          atMs: Date.now(),
        }),
        ops: s.ops,
        logger,
        ...(s.tuning.intakeStalledMs ? { intakeStalledMs: s.tuning.intakeStalledMs } : {}),
      },
      s.tuning.healthWatchMs,
    );
    stopSchedulers.push(stopWatch);
  }

  running.stop = async () => {
    const failed = debugOnFailure(logger, "stopping");
    for (const stop of stopSchedulers) await stop().catch(failed);
    // Stop accepting, then drop idle and half-read connections (a refused oversized body
    // keeps its socket open), so close() can finish.
    const closed = new Promise<void>((resolve) =>
      running.server ? running.server.close(() => resolve()) : resolve(),
    );
    running.server?.closeIdleConnections();
    running.server?.closeAllConnections();
    await closed;
    await pump?.close();
    await started?.close();
    await running.receiver?.close();
  };
  return running;
}

/** The web role: one port for the Insight webhooks (ahead of Express), Slack, health, metrics and routes. */
async function startWeb(
  s: Services,
  features: readonly Feature<Subcommand>[],
  running: RunningRoles,
  workspaces: Workspaces | undefined,
): Promise<void> {
  const { config, logger, metrics } = s;
  const receiver = await openReceiver({
    redisUrl: config.redis.url,
    clusterNodes: config.redis.clusterNodes,
    layout: s.queues.layout,
    prefix: config.redis.prefix,
    spoolDir: config.spoolDir,
    logger,
    metrics,
    health: s.health,
  });
  running.receiver = receiver;

  const commands = new CommandRouter(
    {
      logger,
      adminUserIds: config.adminUserIds,
      // A command's failure is its workspace's: a refused key goes to that workspace's admins.
      reportInsightError: workspaces ? scopedServices(s).reportInsightError : s.reportInsightError,
    },
    features.flatMap((f) => f.subcommands ?? []),
  );
  running.commands = commands;
  const refreshGauges = async () => {
    metrics.spoolSize.set(await receiver.spool.sizeOnDisk());
    // Acknowledged, not yet in the deliveries queue: grows only while no worker role runs.
    metrics.queueDepth.set({ queue: "intake", state: "waiting" }, await intakeLength(s.redis, s.keys));
    for (const q of s.queues.all()) {
      const { prioritized = 0, ...counts } = await q.getJobCounts(
        "waiting",
        "prioritized",
        "active",
        "delayed",
        "failed",
      );
      // Jobs with a priority (fair turns across workspaces) are waiting ones too.
      counts.waiting = (counts.waiting ?? 0) + prioritized;
      for (const [state, n] of Object.entries(counts)) metrics.queueDepth.set({ queue: q.name, state }, n);
    }
    if (s.installs) {
      const installed = await s.installs.installations.list();
      const connected = await Promise.all(installed.map((w) => s.installs?.connections.isConnected(w.id)));
      metrics.workspaces.set({ state: "installed" }, installed.length);
      metrics.workspaces.set({ state: "connected" }, connected.filter(Boolean).length);
      await refreshWorkspaceDepth(metrics.workspaceQueueDepth, s.queues.all());
    }
  };
  const slackApp = createSlackApp({
    signingSecret: config.slack.signingSecret,
    botToken: config.slack.botToken,
    apiUrl: config.slack.apiUrl,
    ...(s.installs && config.multiWorkspace
      ? {
          oauth: oauthReceiverOptions({
            clientId: config.multiWorkspace.clientId,
            clientSecret: config.multiWorkspace.clientSecret,
            apiUrl: config.slack.apiUrl,
            publicUrl: config.publicUrl,
            installationStore: s.installs.installations,
            stateStore: s.installs.states,
            onInstalled: (w) => {
              metrics.installs.inc({ outcome: "installed" });
              logger.info({ workspace: w.id, enterprise: w.enterprise }, "workspace installed the app");
            },
            onFailed: (kind, err) => {
              metrics.installs.inc({ outcome: kind });
              logger.warn({ kind, err }, "an install did not complete");
            },
          }),
        }
      : {}),
    logger,
    secrets: secretsOf(config),
    commands,
    routes: [
      requestIdRouter(logger),
      healthRouter({
        redis: s.redis,
        metrics,
        workers: running.workerHealth,
        overdue: s.overdue,
        refreshGauges,
      }),
      ...features.flatMap((f) => f.routes?.() ?? []),
    ],
    ...(workspaces
      ? { enterWorkspace: (id: string, next: () => Promise<void>) => workspaces.run(id, next) }
      : {}),
    extend: (app) => {
      for (const f of features) f.interactions?.(app, commands.all);
      if (workspaces && s.installs) {
        registerConnect(app, connectDeps(s, s.installs, workspaces));
        registerLifecycle(app, lifecycleDeps(s, s.installs, workspaces));
      }
    },
  });
  running.slackApp = slackApp;
  // The webhook route answers before Express; everything else is Express (Bolt included).
  const webhooks = webhookHandler({
    secret: config.webhookSecret,
    ingest: receiver.ingest,
    logger,
    metrics,
    ...(workspaces && s.installs
      ? { ingestFor: workspaceIngests(s, s.installs.connections, workspaces, receiver) }
      : {}),
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
