import type { Queue } from "bullmq";
import type { StateKeys } from "../store/keys.js";
import type { RedisClient } from "../store/redis.js";
import { classifyDelivery } from "./classify-delivery.js";
import { parseIntakeEntry, receivedAtOf } from "./entry.js";

/*
 * The intake, read-only: how many deliveries wait between the acknowledgement and a job, which
 * is next, and the newest not yet recorded. What `status`, `/metrics`, the health watch and the
 * reconciler read, without the pump.
 */

/** Deliveries acknowledged and not yet in the deliveries queue (status, /metrics). */
export async function intakeLength(
  redis: Pick<RedisClient, "llen">,
  keys: Pick<StateKeys, "intake" | "intakeMoving">,
): Promise<number> {
  const [waiting, moving] = await Promise.all([redis.llen(keys.intake), redis.llen(keys.intakeMoving)]);
  return waiting + moving;
}

/**
 * The receipt time (ms) of the newest delivery acknowledged whose receipt the pump has not
 * recorded yet; undefined when there is none. Read in the order an entry moves (the intake,
 * then the batch in flight) so that one on its way is seen in one of them, or, read after
 * this, in the receipts.
 */
export async function newestPendingMs(
  redis: Pick<RedisClient, "lindex">,
  keys: Pick<StateKeys, "intake" | "intakeMoving">,
): Promise<number | undefined> {
  const waiting = await redis.lindex(keys.intake, -1);
  const moving = await redis.lindex(keys.intakeMoving, -1);
  const times = [waiting, moving].flatMap((raw) => {
    const entry = raw ? parseIntakeEntry(raw) : undefined;
    const t = entry ? Date.parse(receivedAtOf(entry)) : NaN;
    return Number.isNaN(t) ? [] : [t];
  });
  return times.length > 0 ? Math.max(...times) : undefined;
}

/** The delivery at the head of the intake (the batch in flight first): the next one the pump moves. */
export interface IntakeHead {
  /** Deliveries acknowledged and not yet in the deliveries queue. */
  waiting: number;
  /** Undefined when the intake is empty. */
  oldest?: { deliveryId: string; receivedAtMs: number };
}

/** What the health watch looks at: whether the intake's head moves (ops/health-watch.ts). */
export async function intakeHead(
  redis: Pick<RedisClient, "llen" | "lindex">,
  keys: Pick<StateKeys, "intake" | "intakeMoving">,
): Promise<IntakeHead> {
  const [waiting, inFlight, next] = await Promise.all([
    intakeLength(redis, keys),
    redis.lindex(keys.intakeMoving, 0),
    redis.lindex(keys.intake, 0),
  ]);
  const entry = parseIntakeEntry(inFlight ?? "") ?? parseIntakeEntry(next ?? "");
  if (!entry) return { waiting };
  const deliveryId =
    entry.kind === "recorded" ? entry.job.deliveryId : classifyDelivery(entry.body).deliveryId;
  const receivedAtMs = Date.parse(receivedAtOf(entry));
  return { waiting, ...(!Number.isNaN(receivedAtMs) ? { oldest: { deliveryId, receivedAtMs } } : {}) };
}

type DepthReader = Pick<Queue, "name" | "getJobCounts" | "getWorkersCount">;

/**
 * Status's queue readers, with the intake counted as waiting deliveries (on the queue named
 * `deliveriesName`, the deliveries' first shard): a delivery in the intake is one no worker
 * has seen yet, and an intake that grows while no worker runs is the same failure.
 */
export function countingIntake(
  queues: readonly DepthReader[],
  deliveriesName: string,
  intake: () => Promise<number>,
): DepthReader[] {
  return queues.map((q) =>
    q.name !== deliveriesName
      ? q
      : {
          name: q.name,
          getWorkersCount: () => q.getWorkersCount(),
          getJobCounts: async (...types: Parameters<Queue["getJobCounts"]>) => {
            const [counts, n] = await Promise.all([q.getJobCounts(...types), intake()]);
            return "waiting" in counts ? { ...counts, waiting: (counts.waiting ?? 0) + n } : counts;
          },
        },
  );
}
