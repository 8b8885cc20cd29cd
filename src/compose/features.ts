import { adminFeature } from "../admin/feature.js";
import type { Feature } from "../feature.js";
import { relayFeature } from "../jobs/relay-feature.js";
import { reconcileFeature } from "../reconcile/feature.js";
import { Reconciler, type ReconcilerOptions } from "../reconcile/reconciler.js";
import { commandsFeature } from "../slack/commands/feature.js";
import type { Subcommand } from "../slack/commands/types.js";
import { weeklyFeature } from "../weekly/feature.js";
import type { Services } from "./build-services.js";
import {
  commandsDeps,
  messageRouteDeps,
  reconcilerDeps,
  routeDeps,
  slackOutDeps,
  weeklyCommandDeps,
  weeklyRunDeps,
} from "./narrow-deps.js";

export interface FeatureOptions {
  reconciler?: ReconcilerOptions;
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
      slackOut: slackOutDeps(s),
      ...(s.tuning.workerConcurrency ? { concurrency: s.tuning.workerConcurrency } : {}),
    }),
    adminFeature({ password: s.config.adminPassword, queues: () => s.queues.all() }),
    commandsFeature(commandsDeps(s)),
    weeklyFeature({
      command: weeklyCommandDeps(s),
      run: weeklyRunDeps(s),
      schedules: s.schedules,
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
