// The deliveries queue as the worker role fills it: the receiver appends each acknowledged
// delivery to the intake list as received (webhooks/delivery-recorder.ts), and a real IntakePump
// records its receipt and moves it into the deliveries queue (jobs/intake-pump.ts). Tests read
// the queue, the dead letters and the markers after `drain()`.
import type { Job } from "bullmq";
import { createIntakePump } from "../../src/intake/create-pump.js";
import {
  deliveriesOf,
  isDeliveryBatch,
  type DeliveriesJob,
  type DeliveryJob,
} from "../../src/jobs/job-types.js";
import { deliveriesQueue } from "../../src/jobs/queue-registry.js";
import { SINGLE_REDIS, type QueueLayout } from "../../src/jobs/queue-layout.js";
import type { ShardedQueue } from "../../src/jobs/sharded-queue.js";
import { silentLogger } from "../../src/log.js";
import type { Metrics } from "../../src/metrics.js";
import { stateKeys } from "../../src/store/keys.js";
import { isCluster, type RedisClient } from "../../src/store/redis.js";
import { parseIntakeEntry, type IntakeEntry } from "../../src/intake/entry.js";

export interface Intake {
  /** The deliveries queue (every shard of the layout) that `drain` fills. */
  readonly deliveries: ShardedQueue<DeliveriesJob>;
  /** The job of a delivery queued alone (drained by itself: a batch of one); fails on a batch. */
  single(deliveryId: string): Promise<Job<DeliveryJob> | undefined>;
  /** The deliveries of the waiting jobs, oldest first, batch jobs opened. */
  waiting(): Promise<DeliveryJob[]>;
  /**
   * Queues everything in the intake now, through a pump of its own (opened, drained and
   * closed, so its lease is given up at once): the number of entries moved.
   */
  drain(): Promise<number>;
  /** The intake's entries not yet moved by a pump, oldest first. */
  entries(): Promise<IntakeEntry[]>;
  /** Closes the deliveries queue (the connection is the caller's). */
  close(): Promise<void>;
}

/** The intake of the receiver under `prefix`, and the deliveries queue a pump moves it into. */
export function openIntake(o: {
  redis: RedisClient;
  prefix: string;
  layout?: QueueLayout;
  /** Where the pump counts deliveries by outcome and dead letters by reason. */
  metrics?: Metrics;
}): Intake {
  const layout = o.layout ?? SINGLE_REDIS;
  const keys = stateKeys(o.prefix, { cluster: layout.cluster });
  const deliveries = deliveriesQueue(o.redis, o.prefix, layout, silentLogger);
  return {
    deliveries,
    single: async (deliveryId) => {
      const job = await deliveries.getJob(deliveryId);
      if (job && isDeliveryBatch(job.data)) throw new Error(`${deliveryId} is a batch job`);
      return job as Job<DeliveryJob> | undefined;
    },
    waiting: async () =>
      (await deliveries.getJobs(["waiting"], 0, -1, true)).flatMap((j) => deliveriesOf(j.data)),
    drain: async () => {
      // drain() never waits on `blocking` (only the background loop does); close() disconnects it.
      // (Redis and Cluster each have their own duplicate(); the union has no callable one.)
      const blocking: RedisClient = isCluster(o.redis) ? o.redis.duplicate() : o.redis.duplicate();
      blocking.on("error", () => undefined);
      const pump = createIntakePump({
        redis: o.redis,
        blocking,
        prefix: o.prefix,
        deliveriesFor: () => deliveries,
        ...(o.metrics ? { metrics: o.metrics } : {}),
        logger: silentLogger,
      });
      try {
        const moved = await pump.drain();
        if (moved === undefined) throw new Error("another intake pump holds the lease");
        return moved;
      } finally {
        await pump.close();
      }
    },
    entries: async () =>
      (await o.redis.lrange(keys.intake, 0, -1)).flatMap((raw) => parseIntakeEntry(raw) ?? []),
    close: () => deliveries.close(),
  };
}
