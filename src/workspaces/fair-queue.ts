import type { JobsOptions } from "bullmq";
import type { ShardedQueue } from "../jobs/sharded-queue.js";
import { PRIORITY_LIMIT, type FairTurns } from "./fair-turns.js";

/**
 * One workspace's producer of a shared queue that takes fair turns with the other workspaces:
 * each job it adds carries the priority `FairTurns` gives it in its shard, so a workspace with a
 * thousand jobs queued cannot hold back another's single one, while its own jobs keep their
 * order. Everything else passes through (what is read, `queueFor`).
 */
export function fairQueue<T>(
  queue: ShardedQueue<T>,
  turns: Pick<FairTurns, "take">,
  workspaceId: string,
  keyOf: (data: T) => string,
): ShardedQueue<T> {
  const add: ShardedQueue<T>["add"] = async (name, data, opts) => {
    const priority = await turns.take(queue.queueFor(keyOf(data)), workspaceId);
    return queue.add(name, data, { ...opts, priority });
  };
  const addBulk: ShardedQueue<T>["addBulk"] = async (jobs) => {
    // One take per shard, for that shard's jobs in the order given.
    const byShard = new Map<string, { shard: ReturnType<ShardedQueue<T>["queueFor"]>; at: number[] }>();
    jobs.forEach((j, i) => {
      const shard = queue.queueFor(keyOf(j.data));
      const entry = byShard.get(shard.name) ?? { shard, at: [] };
      entry.at.push(i);
      byShard.set(shard.name, entry);
    });
    const priorities: number[] = [];
    for (const { shard, at } of byShard.values()) {
      const first = await turns.take(shard, workspaceId, at.length);
      at.forEach((i, k) => (priorities[i] = Math.min(first + k, PRIORITY_LIMIT)));
    }
    return queue.addBulk(
      jobs.map((j, i) => ({ ...j, opts: { ...j.opts, priority: priorities[i] } as JobsOptions })),
    );
  };
  return new Proxy(queue, {
    get(target, prop, receiver) {
      if (prop === "add") return add;
      if (prop === "addBulk") return addBulk;
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
