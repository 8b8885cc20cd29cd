import type { Feature } from "../feature.js";
import { QUEUE_NAMES } from "../jobs/job-types.js";
import { keepScheduled, type ScheduledQueue } from "../jobs/keep-scheduled.js";
import type { Logger } from "../log.js";
import { alertsCommand, type AlertsCommandDeps } from "../slack/commands/alerts.js";
import type { Subcommand } from "../slack/commands/types.js";
import { evaluateAlerts, type AlertsEvalDeps } from "./evaluate.js";

export const ALERTS_SCHEDULER_ID = "alerts";
export const DEFAULT_ALERTS_INTERVAL_MS = 5 * 60_000;

export interface AlertsFeatureDeps {
  command: AlertsCommandDeps;
  evaluate: AlertsEvalDeps;
}

export interface AlertsOptions {
  /** The deployment's alerts queue, where its one job scheduler lives (a getter: see `healingQueue`). */
  queue: () => ScheduledQueue;
  intervalMs?: number;
  logger: Logger;
}

/**
 * Proactive alerts: the `alerts` subcommand (web) and an evaluation every 5 minutes. As for
 * the reconciler, the schedule is one BullMQ job scheduler for the deployment (in Redis:
 * several scheduler processes make one job per interval between them, a restart keeps the
 * clock); its worker runs in the scheduler role and evaluates each workspace in turn. Repeats
 * are harmless anyway: each condition is claimed once.
 */
export function alertsFeature(o: AlertsOptions): Feature<AlertsFeatureDeps, Subcommand> {
  const intervalMs = o.intervalMs ?? DEFAULT_ALERTS_INTERVAL_MS;
  return {
    name: "alerts",
    subcommands: (deps) => [
      alertsCommand({ ...deps.command, everyMinutes: Math.max(1, Math.round(intervalMs / 60_000)) }),
    ],
    workers: [
      {
        queue: QUEUE_NAMES.alerts,
        role: "scheduler",
        concurrency: 1,
        eachWorkspace: (deps, job) => evaluateAlerts(deps.evaluate, job.id ?? "alerts"),
        // A workspace without alert settings has nothing to evaluate.
        dueWhen: ["alerts"],
      },
    ],
    startScheduler: () =>
      keepScheduled({
        queue: o.queue,
        schedulerId: ALERTS_SCHEDULER_ID,
        name: "alerts",
        everyMs: intervalMs,
        what: "alerts",
        logger: o.logger,
      }),
  };
}
