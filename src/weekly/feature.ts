import type { Job } from "bullmq";
import type { Feature } from "../feature.js";
import { QUEUE_NAMES, type WeeklyJob } from "../jobs/queues.js";
import type { Logger } from "../log.js";
import type { Subcommand } from "../slack/commands/types.js";
import { weeklyCommand, type WeeklyCommandDeps } from "./command.js";
import { runWeeklySummary, type WeeklyRunDeps } from "./run-weekly.js";
import type { WeeklySchedules } from "./schedules.js";

export interface WeeklyFeatureDeps {
  command: WeeklyCommandDeps;
  run: WeeklyRunDeps;
  schedules: Pick<WeeklySchedules, "reassert">;
  logger: Logger;
  /** Channels summarised at once by one worker process; default 2. */
  workerConcurrency?: number;
}

/**
 * Weekly summaries: the `weekly` subcommand (web), the `weekly` queue's worker (worker), and
 * at start of the scheduler role a check that BullMQ's job schedulers match the stored
 * schedules. The schedules themselves are BullMQ job schedulers, written by `weekly on`
 * directly: they live in Redis and fire whichever roles are up.
 */
export function weeklyFeature(deps: WeeklyFeatureDeps): Feature<Subcommand> {
  return {
    name: "weekly",
    subcommands: [weeklyCommand(deps.command)],
    workers: [
      {
        queue: QUEUE_NAMES.weekly,
        processor: (job: Job<WeeklyJob>) => runWeeklySummary(job, deps.run),
        concurrency: deps.workerConcurrency ?? 2,
      },
    ],
    async startScheduler() {
      try {
        const r = await deps.schedules.reassert();
        if (r.restored.length > 0 || r.removed.length > 0) {
          deps.logger.info(r, "weekly schedules re-asserted");
        }
      } catch (err) {
        // Not fatal: the schedules already in BullMQ keep firing; the next start checks again.
        deps.logger.warn({ err }, "could not check weekly schedules");
      }
      return async () => undefined;
    },
  };
}
