import type { Job } from "bullmq";
import type { Feature } from "../feature.js";
import { QUEUE_NAMES, type DigestJob } from "../jobs/job-types.js";
import { digestCommand, type DigestCommandDeps } from "../slack/commands/digest.js";
import type { Subcommand } from "../slack/commands/types.js";
import { flushDigest, type DigestFlushDeps } from "./flush.js";
import type { DigestSchedules } from "./schedules.js";

export interface DigestFeatureDeps {
  command: DigestCommandDeps;
  flush: DigestFlushDeps;
  schedules: Pick<DigestSchedules, "reassert">;
}

/**
 * Digest mode: `digest now` (web), the `digest` queue's flushes (worker), and at start of the
 * scheduler role a check that the period job schedulers match the subscriptions. Threads reach
 * the pending sets through routing (jobs/route-thread-event.ts, with `digestIntake`).
 */
export function digestFeature(
  o: { workerConcurrency?: number } = {},
): Feature<DigestFeatureDeps, Subcommand> {
  return {
    name: "digest",
    subcommands: (deps) => [digestCommand(deps.command)],
    workers: [
      {
        queue: QUEUE_NAMES.digest,
        processor: (deps) => (job: Job<DigestJob>) => flushDigest(job, deps.flush),
        // Channels flushed at once by one worker process.
        concurrency: o.workerConcurrency ?? 4,
      },
    ],
    // Logged by the root, which runs it for each workspace.
    reassertSchedules: (deps) => deps.schedules.reassert(),
  };
}
