import { createServer, type Server } from "node:http";
import { secretsOf } from "../config.js";
import { healthRouter } from "../http/health-routes.js";
import { requestIdRouter } from "../http/request-id.js";
import { intakeLength } from "../intake/view.js";
import type { WorkerHealth } from "../jobs/worker-health.js";
import { createSlackApp, type SlackAppParts } from "../slack/app.js";
import { oauthReceiverOptions } from "../slack/install/oauth-options.js";
import { openReceiver, type Receiver } from "../webhooks/create-receiver.js";
import { webhookHandler } from "../webhooks/route.js";
import { refreshWorkspaceDepth } from "../workspaces/queue-depth.js";
import type { Services } from "./build-services.js";
import type { Deployment } from "./deployment.js";
import type { ThreadMetrics } from "./roles-thread-protocol.js";
import { workspaceOfRequest, workspaceResolver } from "./request-workspace.js";

export interface RunningWeb {
  server: Server;
  port: number;
  slackApp: SlackAppParts;
  receiver: Receiver;
}

/**
 * The web role: one port for the Insight webhooks (ahead of Express), Slack (every request
 * resolves its workspace first), health, metrics and the features' routes.
 */
export async function startWeb(
  s: Services,
  d: Deployment,
  workerHealth: Pick<WorkerHealth, "probe" | "queueNames"> | undefined,
  /** The process's other registry (its roles thread's), added to this one's in /metrics. */
  moreMetrics?: () => Promise<ThreadMetrics>,
): Promise<RunningWeb> {
  const { config, logger, metrics } = s;
  const receiver = await openReceiver({
    redisUrl: config.redis.url,
    clusterNodes: config.redis.clusterNodes,
    prefix: config.redis.prefix,
    spoolDir: config.spoolDir,
    logger,
    metrics,
  });
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
    const census = await d.census?.();
    if (census) {
      metrics.workspaces.set({ state: "installed" }, census.installed);
      metrics.workspaces.set({ state: "connected" }, census.connected);
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
    resolveWorkspace: workspaceResolver(d),
    commandsOf: (context) => workspaceOfRequest(context).commands,
    routes: [
      requestIdRouter(logger),
      healthRouter({
        redis: s.redis,
        metrics,
        workers: workerHealth,
        overdue: s.overdue,
        refreshGauges,
        ...(moreMetrics ? { moreMetrics } : {}),
      }),
      ...d.features.flatMap((f) => f.routes()),
    ],
    extend: (app) => {
      for (const f of d.features) f.interactions(app, workspaceOfRequest);
    },
  });
  // The webhook route answers before Express; everything else is Express (Bolt included).
  const webhooks = webhookHandler({
    secret: config.webhookSecret,
    ingest: receiver.ingest,
    logger,
    metrics,
    ...(d.ingestFor ? { ingestFor: d.ingestFor(receiver) } : {}),
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
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : config.port;
  logger.info({ port }, "web role listening");
  return { server, port, slackApp, receiver };
}
