import { jobId, jobOfOwn, type AddOptions, type DeliveriesJob, type DeliveryJob } from "../jobs/job-types.js";

/** The job name of a batch (a single delivery's job is named after its webhook type). */
export const BATCH_JOB_NAME = "batch";

/**
 * Deliveries in one batch job at most. A worker takes as many jobs as its concurrency (50) while
 * it processes 50 deliveries at once: jobs of 20 are about two seconds of its work, which a
 * stopping worker finishes within its grace (10 s) and a second worker process shares in a
 * burst; 100 would be about twenty. BullMQ's add, fetch and completion, paid once a job, stay
 * a twentieth of what they were.
 */
export const MAX_BATCH_JOB = 20;

/**
 * A run's jobs, in the order of each shard's first delivery: a shard's deliveries go in batch
 * jobs of at most `MAX_BATCH_JOB` (in their order), or a job of their own when alone. A delivery
 * that is in the run twice (a receipt spooled while its script ran late: both copies reach the
 * intake) is queued once, as its job id keeps it once when alone.
 */
export function batchJobs(
  deliveries: DeliveryJob[],
  shardOf: (job: DeliveryJob) => number,
): { name: string; data: DeliveriesJob; opts: AddOptions }[] {
  const byShard = new Map<number, DeliveryJob[]>();
  const seen = new Set<string>();
  for (const job of deliveries) {
    if (seen.has(job.deliveryId)) continue;
    seen.add(job.deliveryId);
    const shard = shardOf(job);
    const same = byShard.get(shard);
    if (same) same.push(job);
    else byShard.set(shard, [job]);
  }
  const chunks = [...byShard.values()].flatMap((all) =>
    Array.from({ length: Math.ceil(all.length / MAX_BATCH_JOB) }, (_, i) =>
      all.slice(i * MAX_BATCH_JOB, (i + 1) * MAX_BATCH_JOB),
    ),
  );
  return chunks.map((batch) => {
    const [first] = batch;
    const last = batch.at(-1);
    if (batch.length === 1 && first) {
      return jobOfOwn(first);
    }
    return {
      name: BATCH_JOB_NAME,
      data: { batch },
      opts: { jobId: jobId(BATCH_JOB_NAME, first?.deliveryId ?? "", last?.deliveryId ?? "", batch.length) },
    };
  });
}
