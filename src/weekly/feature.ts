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
}

/**
 * Weekly summaries: the `weekly` subcommand (web), the `weekly` queue's worker (worker), and
 * at start of the scheduler role a check that BullMQ's job schedulers match the stored
 * schedules (`reassertSchedules`). The schedules themselves are BullMQ job schedulers, written
 * by `weekly on` directly: they live in Redis and fire whichever roles are up.
 */
export function weeklyFeature(
  o: { workerConcurrency?: number } = {},
): Feature<WeeklyFeatureDeps, Subcommand> {
  return {
    name: "weekly",
    subcommands: (deps) => [weeklyCommand(deps.command)],
    workers: [
      {
        queue: QUEUE_NAMES.weekly,
        processor: (deps) => (job: Job<WeeklyJob>) => runWeeklySummary(job, deps.run),
        // Channels summarised at once by one worker process.
        concurrency: o.workerConcurrency ?? 2,
      },
    ],
    // Logged by the root, which runs it for each workspace.
    reassertSchedules: (deps) => deps.schedules.reassert(),
  };
}
