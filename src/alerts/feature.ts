import type { Queue } from "bullmq";
import type { Feature } from "../feature.js";
import { QUEUE_NAMES, type AlertsJob } from "../jobs/queues.js";
import type { Logger } from "../log.js";
import { alertsCommand, type AlertsCommandDeps } from "../slack/commands/alerts.js";
import type { Subcommand } from "../slack/commands/types.js";
import { evaluateAlerts, type AlertsEvalDeps } from "./evaluate.js";

export const ALERTS_SCHEDULER_ID = "alerts";
export const DEFAULT_ALERTS_INTERVAL_MS = 5 * 60_000;
const RETRY_SETUP_MS = 30_000;

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
    async startScheduler() {
      let stopped = false;
      let retry: NodeJS.Timeout | undefined;
      const schedule = async (): Promise<void> => {
        try {
          await deps.queue().upsertJobScheduler(
            ALERTS_SCHEDULER_ID,
            { every: intervalMs },
            {
              name: "alerts",
              opts: { attempts: 1, removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } },
            },
          );
        } catch (err) {
          // Redis down at start-up: the rest of the app runs; the schedule is set once Redis is back.
          deps.logger.warn({ err }, "alerts: could not set their schedule; retrying in 30 s");
          if (!stopped) retry = setTimeout(() => void schedule(), RETRY_SETUP_MS).unref();
        }
      };
      await schedule();
      return async () => {
        stopped = true;
        if (retry) clearTimeout(retry);
      };
    },
  };
}
