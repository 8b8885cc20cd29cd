import type { Logger } from "../log.js";
import type { DeliveryResult } from "./process-delivery.js";
import { jobOfOwn, type DeliveriesJob, type DeliveryJob, type Producer } from "./job-types.js";

/** A delivery that failed in its batch waits this long before its own job tries it again. */
export const REQUEUE_DELAY_MS = 1_000;

export interface DeliveryBatchDeps {
  /** One delivery's processing: the same as its own job's. */
  process: (delivery: DeliveryJob) => Promise<DeliveryResult>;
  /** Where a delivery that failed goes again, as a job of its own (a getter: see `healingQueue`). */
  deliveriesQueue: () => Producer<DeliveriesJob>;
  logger: Logger;
}

export interface DeliveryBatchResult {
  deliveries: number;
  /** Failed here and queued again, each as a job of its own. */
  requeued: number;
  /** The batch ran again, so it was not processed: every delivery went as a job of its own. */
  split?: true;
}

/**
 * A batch job of the deliveries queue (intake-pump.ts): each delivery is processed as its own
 * job would be, the threads at once and each thread's deliveries in the order they came (a
 * creation and its re-enrichments in one batch: the pending digest, the card and the counts
 * see them as they happened). One that fails does not fail the others: it is queued again as a
 * job of its own, with the deliveries queue's attempts and backoff, and is recorded as failed
 * alone if they run out. Only when that add fails too (Redis away) does the batch fail, and its
 * retry processes the whole batch again: processing is idempotent (card versions, job ids), as
 * it is for a job run twice after a killed worker.
 */
export async function processDeliveryBatch(
  batch: DeliveryJob[],
  deps: DeliveryBatchDeps,
): Promise<DeliveryBatchResult> {
  const settled = await inThreadOrder(batch, deps.process);
  const failed: { delivery: DeliveryJob; reason: unknown }[] = [];
  settled.forEach((r, i) => {
    const delivery = batch[i];
    if (r.status === "rejected" && delivery) failed.push({ delivery, reason: r.reason });
  });
  const [first] = failed;
  if (!first) return { deliveries: batch.length, requeued: 0 };
  deps.logger.warn(
    { failed: failed.length, of: batch.length, deliveryId: first.delivery.deliveryId, err: first.reason },
    "deliveries of a batch failed; each goes again as a job of its own",
  );
  const queue = deps.deliveriesQueue();
  await Promise.all(
    failed.map(({ delivery }) => {
      const own = jobOfOwn(delivery);
      return queue.add(own.name, own.data, { ...own.opts, delay: REQUEUE_DELAY_MS });
    }),
  );
  return { deliveries: batch.length, requeued: failed.length };
}

/**
 * A batch job that runs a second time: its worker stopped or died mid-batch (the lock expired) or
 * the batch failed. Its deliveries are queued again, in order, each as a job of its own (its
 * delivery id as job id, the queue's attempts), and the batch ends at once. BullMQ fails a job
 * that stalls a second time without running it, and a batch of twenty deliveries may be cut
 * short again (a rolling restart): jobs of one delivery are as short as they were before
 * batches. Deliveries the first run had finished run again, which their idempotency absorbs
 * (card versions), as for any job run twice.
 */
export async function splitDeliveryBatch(
  batch: DeliveryJob[],
  deps: Pick<DeliveryBatchDeps, "deliveriesQueue" | "logger">,
  batchId: string | undefined,
): Promise<DeliveryBatchResult> {
  const queue = deps.deliveriesQueue();
  deps.logger.info(
    { jobId: batchId, deliveries: batch.length },
    "batch of deliveries runs again; each delivery goes as a job of its own",
  );
  // One after another: the queue keeps them in the batch's order.
  for (const delivery of batch) {
    const own = jobOfOwn(delivery);
    await queue.add(own.name, own.data, own.opts);
  }
  return { deliveries: batch.length, requeued: batch.length, split: true };
}

/** Runs each delivery, one thread's in order (after the one before it settled), threads at once. */
function inThreadOrder(
  batch: DeliveryJob[],
  process: (delivery: DeliveryJob) => Promise<DeliveryResult>,
): Promise<PromiseSettledResult<DeliveryResult>[]> {
  const last = new Map<string, Promise<unknown>>();
  return Promise.allSettled(
    batch.map((d) => {
      const thread = d.event.payload.threadId ?? d.deliveryId;
      const before = last.get(thread) ?? Promise.resolve();
      const run = before.then(
        () => process(d),
        () => process(d),
      );
      last.set(thread, run);
      return run;
    }),
  );
}
