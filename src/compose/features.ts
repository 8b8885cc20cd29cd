import { adminFeature, type AdminFeatureDeps } from "../admin/feature.js";
import type { Feature } from "../feature.js";
import type { Queues } from "../jobs/queue-registry.js";
import { relayFeature } from "../jobs/relay-feature.js";
import { repeatCheck } from "../intake/receipts.js";
import { reconcileFeature } from "../reconcile/feature.js";
import { Reconciler, type ReconcilerOptions } from "../reconcile/reconciler.js";
import { commandsFeature } from "../slack/commands/feature.js";
import type { Subcommand } from "../slack/commands/types.js";
import { weeklyFeature } from "../weekly/feature.js";
import { digestFeature } from "../digest/feature.js";
import { alertsFeature } from "../alerts/feature.js";
import type { Services } from "./build-services.js";
import {
  alertsCommandDeps,
  alertsEvalDeps,
  commandsDeps,
  digestCommandDeps,
  digestFlushDeps,
  messageRouteDeps,
  reconcilerDeps,
  routeDeps,
  slackOutDeps,
  weeklyCommandDeps,
  weeklyRunDeps,
} from "./narrow-deps.js";

export interface FeatureOptions {
  reconciler?: ReconcilerOptions;
  /** Multi-workspace mode: the admin page reads the deployment's queues and its workspaces. */
  admin?: Pick<AdminFeatureDeps, "queues" | "workspaces">;
  /**
   * Multi-workspace mode: the shared queues, where the deployment-wide job schedulers (alerts,
   * reconcile) are set once; the worker runs each of their jobs for every workspace.
   */
  sharedQueues?: Pick<Queues, "alerts" | "reconcile">;
}

/**
 * Every feature of the app, each built with only what it uses. The order is the order `help`
 * lists their subcommands in (after `help` itself).
 */
export function buildFeatures(s: Services, o: FeatureOptions = {}): Feature<Subcommand>[] {
  const shared = o.sharedQueues ?? s.queues;
  return [
    relayFeature({
      route: routeDeps(s),
      messages: messageRouteDeps(s),
      health: s.health,
      isRepeat: repeatCheck(s.redis, s.keys),
      slackOut: slackOutDeps(s),
      deliveriesQueue: () => s.queues.deliveries,
      sendAtOnce: !s.config.multiWorkspace,
      ...(s.tuning.workerConcurrency ? { concurrency: s.tuning.workerConcurrency } : {}),
    }),
    adminFeature({
      password: s.config.adminPassword,
      queues: () => s.queues.all(),
      ...o.admin,
    }),
    commandsFeature(commandsDeps(s)),
    weeklyFeature({
      command: weeklyCommandDeps(s),
      run: weeklyRunDeps(s),
      schedules: s.schedules,
    }),
    digestFeature({
      command: digestCommandDeps(s),
      flush: digestFlushDeps(s),
      schedules: s.digest.schedules,
    }),
    alertsFeature({
      command: alertsCommandDeps(s),
      evaluate: alertsEvalDeps(s),
      queue: () => shared.alerts,
      ...(s.tuning.alertsIntervalMs ? { intervalMs: s.tuning.alertsIntervalMs } : {}),
      logger: s.logger,
    }),
    reconcileFeature({
      reconciler: new Reconciler(reconcilerDeps(s), o.reconciler),
      queue: () => shared.reconcile,
      intervalSeconds: s.config.reconcileIntervalSeconds,
      logger: s.logger,
    }),
  ];
}
