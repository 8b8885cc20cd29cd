import pLimit, { type LimitFunction } from "p-limit";

/**
 * At most `n` tasks at once for each queue (a sharded queue's shard is a queue of its own): what
 * a BullMQ worker's concurrency does for jobs, for the items inside jobs that carry several.
 */
export function limitPerQueue(n: number): (queue: string) => LimitFunction {
  const limits = new Map<string, LimitFunction>();
  return (queue) => {
    let limit = limits.get(queue);
    if (!limit) {
      limit = pLimit(n);
      limits.set(queue, limit);
    }
    return limit;
  };
}
