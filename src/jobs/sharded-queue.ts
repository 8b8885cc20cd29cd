import { Queue, type Job, type JobsOptions, type JobType } from "bullmq";
import type { Logger } from "../log.js";
import type { RedisClient as Redis } from "../store/redis.js";
import { healingQueue, type HealingQueue } from "./healing-queue.js";
import type { Producer, QueueName } from "./job-types.js";
import { physicalNames, shardOf, type QueueLayout } from "./queue-layout.js";

/**
 * One queue split over shards: `add` and `addBulk` send each job to the shard of its key (a
 * thread's deliveries and refreshes, a channel's Slack jobs), so a job id's de-duplication
 * and a thread's order hold within one shard.
 */
export interface ShardedQueue<T> extends Producer<T> {
  readonly name: QueueName;
  add(name: string, data: T, opts?: JobsOptions): Promise<Job<T>>;
  /** The shard's queue for this key. */
  queueFor(shardKey: string): Queue<T>;
  /** Which shard (from 0) a job with this data goes to. */
  shardIndexOf(data: T): number;
  /** Every shard, shard 0 first. */
  shards(): Queue<T>[];
  addBulk(jobs: { name: string; data: T; opts?: JobsOptions }[]): Promise<unknown>;
  // Readers over every shard (status, tests): the same answers as one Queue's.
  getJobCounts(...types: JobType[]): Promise<Record<string, number>>;
  getJobs(types?: JobType[], start?: number, end?: number, asc?: boolean): Promise<Job<T>[]>;
  /** The job of that id in whichever shard holds it. */
  getJob(id: string): Promise<Job<T> | undefined>;
  getActiveCount(): Promise<number>;
  count(): Promise<number>;
  waitUntilReady(): Promise<void>;
  close(): Promise<void>;
}

export function shardedQueue<T>(
  connection: Redis,
  prefix: string,
  name: QueueName,
  keyOf: (data: T) => string,
  layout: QueueLayout,
  defaultJobOptions: JobsOptions,
  logger?: Logger,
): ShardedQueue<T> {
  const shards = physicalNames(name, layout).map((physical) =>
    makeQueue<T>(connection, prefix, physical, defaultJobOptions, logger),
  );
  const indexOf = (data: T) => shardOf(keyOf(data), shards.length);
  const pick = (key: string): Queue<T> => {
    const q = shards[shardOf(key, shards.length)] ?? shards[0];
    if (!q) throw new Error(`queue ${name} has no shard`);
    return q();
  };
  const all = () => shards.map((q) => q());
  return {
    name,
    queueFor: pick,
    shardIndexOf: indexOf,
    shards: all,
    // BullMQ's name type is a conditional type of T, which a generic T cannot resolve.
    add: (jobName, data, opts) => (pick(keyOf(data)) as Queue).add(jobName, data, opts) as Promise<Job<T>>,
    addBulk: async (jobs) => {
      const byShard = new Map<Queue, typeof jobs>();
      for (const j of jobs) {
        const q = pick(keyOf(j.data)) as Queue;
        byShard.set(q, [...(byShard.get(q) ?? []), j]);
      }
      return (await Promise.all([...byShard].map(([q, js]) => q.addBulk(js)))).flat();
    },
    getJobCounts: async (...types) => {
      const sum: Record<string, number> = {};
      for (const c of await Promise.all(all().map((q) => q.getJobCounts(...types)))) {
        for (const [k, v] of Object.entries(c)) sum[k] = (sum[k] ?? 0) + v;
      }
      return sum;
    },
    getJobs: async (types, start, end, asc) =>
      (await Promise.all(all().map((q) => q.getJobs(types, start, end, asc)))).flat(),
    getJob: async (id) => {
      for (const q of all()) {
        const job = await q.getJob(id);
        if (job) return job;
      }
      return undefined;
    },
    getActiveCount: async () =>
      (await Promise.all(all().map((q) => q.getActiveCount()))).reduce((a, b) => a + b, 0),
    count: async () => (await Promise.all(all().map((q) => q.count()))).reduce((a, b) => a + b, 0),
    waitUntilReady: async () => {
      await Promise.all(all().map((q) => q.waitUntilReady()));
    },
    close: async () => {
      await Promise.all(shards.map((q) => q.close()));
    },
  };
}

/** One healing queue (one shard), by its BullMQ name. */
export function makeQueue<T>(
  connection: Redis,
  prefix: string,
  name: string,
  defaultJobOptions: JobsOptions,
  logger?: Logger,
): HealingQueue<Queue<T>> {
  return healingQueue(
    () => new Queue<T>(name, { connection, prefix, defaultJobOptions }),
    (err) => logger?.warn({ queue: name, err }, "queue set-up had failed; made it again"),
  );
}
