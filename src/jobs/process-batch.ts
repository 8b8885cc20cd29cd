import type { Logger } from "../log.js";
import type { DeliveryResult } from "./process-delivery.js";
import type { DeliveriesJob, DeliveryJob, Producer } from "./queues.js";

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
}

/**
 * A batch job of the deliveries queue (intake-pump.ts): each delivery is processed as its own
 * job would be, all at once. One that fails does not fail the others: it is queued again as a
 * job of its own, with the deliveries queue's attempts and backoff, and is recorded as failed
 * alone if they run out. Only when that add fails too (Redis away) does the batch fail, and its
 * retry processes the whole batch again: processing is idempotent (card versions, job ids), as
 * it is for a job run twice after a killed worker.
 */
export async function processDeliveryBatch(
  batch: DeliveryJob[],
  deps: DeliveryBatchDeps,
): Promise<DeliveryBatchResult> {
  const settled = await Promise.allSettled(batch.map((d) => deps.process(d)));
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
    failed.map(({ delivery }) =>
      queue.add(delivery.event.webhookType, delivery, {
        jobId: delivery.deliveryId,
        delay: REQUEUE_DELAY_MS,
      }),
    ),
  );
  return { deliveries: batch.length, requeued: failed.length };
}
