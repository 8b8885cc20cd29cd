import { adminFeature, type AdminFeatureDeps } from "../admin/feature.js";
import type { Feature } from "../feature.js";
import { relayFeature } from "../jobs/relay-feature.js";
import { repeatCheck } from "../webhooks/delivery-recorder.js";
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
}

/**
 * Every feature of the app, each built with only what it uses. The order is the order `help`
 * lists their subcommands in (after `help` itself).
 */
export function buildFeatures(s: Services, o: FeatureOptions = {}): Feature<Subcommand>[] {
  return [
    relayFeature({
      route: routeDeps(s),
      messages: messageRouteDeps(s),
      health: s.health,
      isRepeat: repeatCheck(s.redis, s.keys),
      slackOut: slackOutDeps(s),
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
      logger: s.logger,
    }),
    digestFeature({
      command: digestCommandDeps(s),
      flush: digestFlushDeps(s),
      schedules: s.digest.schedules,
      logger: s.logger,
    }),
    alertsFeature({
      command: alertsCommandDeps(s),
      evaluate: alertsEvalDeps(s),
      queue: () => s.queues.alerts,
      ...(s.tuning.alertsIntervalMs ? { intervalMs: s.tuning.alertsIntervalMs } : {}),
      logger: s.logger,
    }),
    reconcileFeature({
      reconciler: new Reconciler(reconcilerDeps(s), o.reconciler),
      queue: () => s.queues.reconcile,
      intervalSeconds: s.config.reconcileIntervalSeconds,
      logger: s.logger,
    }),
  ];
}
