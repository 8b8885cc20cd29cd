import type { Job } from "bullmq";
import type { Feature } from "../feature.js";
import { QUEUE_NAMES, type WeeklyJob } from "../jobs/job-types.js";
import type { Subcommand } from "../slack/commands/types.js";
import { weeklyCommand, type WeeklyCommandDeps } from "./command.js";
import { runWeeklySummary, type WeeklyRunDeps } from "./run-weekly.js";
import type { WeeklySchedules } from "./schedules.js";

export interface WeeklyFeatureDeps {
  command: WeeklyCommandDeps;
  run: WeeklyRunDeps;
  schedules: Pick<WeeklySchedules, "reassert">;
  /** Channels summarised at once by one worker process; default 2. */
  workerConcurrency?: number;
}

/**
 * Weekly summaries: the `weekly` subcommand (web), the `weekly` queue's worker (worker), and
 * at start of the scheduler role a check that BullMQ's job schedulers match the stored
 * schedules (`reassertSchedules`). The schedules themselves are BullMQ job schedulers, written
 * by `weekly on` directly: they live in Redis and fire whichever roles are up.
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
    // Logged by the root, which runs it in each workspace when there are many.
    reassertSchedules: () => deps.schedules.reassert(),
  };
}
