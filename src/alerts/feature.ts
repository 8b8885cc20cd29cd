import type { Queue } from "bullmq";
import type { Feature } from "../feature.js";
import { QUEUE_NAMES, type AlertsJob } from "../jobs/job-types.js";
import { keepScheduled } from "../jobs/keep-scheduled.js";
import type { Logger } from "../log.js";
import { alertsCommand, type AlertsCommandDeps } from "../slack/commands/alerts.js";
import type { Subcommand } from "../slack/commands/types.js";
import { evaluateAlerts, type AlertsEvalDeps } from "./evaluate.js";

export const ALERTS_SCHEDULER_ID = "alerts";
export const DEFAULT_ALERTS_INTERVAL_MS = 5 * 60_000;

export interface AlertsFeatureDeps {
  command: AlertsCommandDeps;
  evaluate: AlertsEvalDeps;
  /** A getter: see `healingQueue`. */
  queue: () => Queue<AlertsJob>;
  intervalMs?: number;
  logger: Logger;
}

/**
 * Proactive alerts: the `alerts` subcommand (web) and an evaluation every 5 minutes. As for
 * the reconciler, the schedule is a BullMQ job scheduler (in Redis: several scheduler
 * processes make one job per interval between them, a restart keeps the clock) and its worker
 * runs in the scheduler role. Repeats are harmless anyway: each condition is claimed once.
 */
export function alertsFeature(deps: AlertsFeatureDeps): Feature<Subcommand> {
  const intervalMs = deps.intervalMs ?? DEFAULT_ALERTS_INTERVAL_MS;
  return {
    name: "alerts",
    subcommands: [
      alertsCommand({ ...deps.command, everyMinutes: Math.max(1, Math.round(intervalMs / 60_000)) }),
    ],
    workers: [
      {
        queue: QUEUE_NAMES.alerts,
        role: "scheduler",
        concurrency: 1,
        processor: async (job) => evaluateAlerts(deps.evaluate, job.id ?? "alerts"),
      },
    ],
    startScheduler: () =>
      keepScheduled({
        queue: deps.queue,
        schedulerId: ALERTS_SCHEDULER_ID,
        name: "alerts",
        everyMs: intervalMs,
        what: "alerts",
        logger: deps.logger,
      }),
  };
}
