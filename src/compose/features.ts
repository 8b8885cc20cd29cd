import { adminFeature } from "../admin/feature.js";
import type { WorkspaceRow } from "../admin/workspaces-page.js";
import { alertsFeature } from "../alerts/feature.js";
import { digestFeature } from "../digest/feature.js";
import { relayFeature } from "../jobs/relay-feature.js";
import { reconcileFeature } from "../reconcile/feature.js";
import { Reconciler, type ReconcilerOptions } from "../reconcile/reconciler.js";
import { commandsFeature } from "../slack/commands/feature.js";
import { weeklyFeature } from "../weekly/feature.js";
import { askFeature } from "../ask/feature.js";
import { plug, type BoundFeature } from "./app-workspace.js";
import type { Services } from "./build-services.js";
import {
  alertsFeatureDeps,
  askDeps,
  commandsDeps,
  digestFeatureDeps,
  reconcilerDeps,
  relayDeps,
  weeklyFeatureDeps,
} from "./narrow-deps.js";

export interface FeatureOptions {
  reconciler?: ReconcilerOptions;
  /** Many workspaces: the admin page lists them. */
  adminWorkspaces?: () => Promise<WorkspaceRow[]>;
}

/**
 * Every feature of the app, each paired with how its narrow deps are cut from a workspace
 * (narrow-deps.ts). The order is the order `help` lists their subcommands in (after `help`
 * itself); `extra` are the many-workspace features (Connect, lifecycle).
 */
export function buildFeatures(
  s: Services,
  extra: readonly BoundFeature[],
  o: FeatureOptions = {},
): BoundFeature[] {
  const none = () => ({});
  return [
    plug(
      relayFeature({
        sendAtOnce: !s.config.multiWorkspace,
        ...(s.tuning.workerConcurrency ? { concurrency: s.tuning.workerConcurrency } : {}),
      }),
      relayDeps,
    ),
    plug(
      adminFeature({
        password: s.config.adminPassword,
        queues: () => s.queues.all(),
        ...(o.adminWorkspaces ? { workspaces: o.adminWorkspaces } : {}),
      }),
      none,
    ),
    plug(commandsFeature, commandsDeps),
    plug(weeklyFeature(), weeklyFeatureDeps),
    plug(digestFeature(), digestFeatureDeps),
    plug(
      alertsFeature({
        queue: () => s.queues.alerts,
        ...(s.tuning.alertsIntervalMs ? { intervalMs: s.tuning.alertsIntervalMs } : {}),
        logger: s.logger,
      }),
      alertsFeatureDeps,
    ),
    plug(askFeature, askDeps),
    plug(
      reconcileFeature({
        queue: () => s.queues.reconcile,
        intervalSeconds: s.config.reconcileIntervalSeconds,
        logger: s.logger,
      }),
      (ws) => ({ reconciler: new Reconciler(reconcilerDeps(ws), o.reconciler) }),
    ),
    ...extra,
  ];
}
