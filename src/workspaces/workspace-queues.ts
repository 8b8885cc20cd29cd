import { randomUUID } from "node:crypto";
import type { JobsOptions, Queue } from "bullmq";
import type { JobSchedulers } from "../jobs/job-schedulers.js";
import {
  jobId,
  type DeliveriesJob,
  type DigestJob,
  type Producer,
  type RefreshJob,
  type SlackJob,
  type WeeklyJob,
} from "../jobs/job-types.js";
import { SHARD_KEYS } from "../jobs/queue-layout.js";
import type { Queues } from "../jobs/queue-registry.js";
import type { ShardedQueue } from "../jobs/sharded-queue.js";
import { PRIORITY_LIMIT, type FairTurns } from "./fair-turns.js";

/** What the intake pump adds a workspace's deliveries through. */
export interface DeliveriesProducer extends Producer<DeliveriesJob> {
  addBulk(jobs: { name: string; data: DeliveriesJob; opts?: JobsOptions }[]): Promise<unknown>;
  /** The shard a delivery goes to: a batch job holds one shard's deliveries. */
  shardIndexOf(data: DeliveriesJob): number;
}

/** A workspace's Slack jobs: one, or several at once (a flood's jobs take one fair turn per shard). */
export interface SlackProducer extends Producer<SlackJob> {
  addBulk(jobs: { name: string; data: SlackJob; opts?: JobsOptions }[]): Promise<unknown>;
}

/**
 * One workspace's producers of the deployment's shared queues. Every job it adds carries its
 * `workspaceId` (a worker refuses a job without one). With many workspaces (`ownIds`) job and
 * scheduler ids are prefixed with it too, so two workspaces that make the "same" job (same
 * channel, thread or delivery id) never collide or de-duplicate each other, per-workspace depth
 * is read from ids (queue-depth.ts), and its Slack jobs take fair turns with the other
 * workspaces' (`turns`). A single-workspace deployment keeps the ids it always had.
 */
export interface WorkspaceQueues {
  readonly deliveries: DeliveriesProducer;
  readonly slack: SlackProducer;
  readonly refresh: Producer<RefreshJob>;
  readonly weekly: Producer<WeeklyJob> & JobSchedulers<WeeklyJob>;
  readonly digest: Producer<DigestJob> & JobSchedulers<DigestJob>;
}

export interface WorkspaceQueueOptions {
  /** Ids name the workspace (many workspaces share the queues). */
  ownIds: boolean;
  /** Slack jobs take fair turns across workspaces (many workspaces). */
  turns?: FairTurns | undefined;
}

export function workspaceQueues(q: Queues, workspaceId: string, o: WorkspaceQueueOptions): WorkspaceQueues {
  const ids = idsOf(workspaceId, o.ownIds);
  const stamp = <T>(data: T): T => ({ ...data, workspaceId });
  const stamped = <T>(shared: () => ShardedQueue<T> | Queue) => ({
    add: (name: string, data: T, opts?: JobsOptions) =>
      (shared() as Queue).add(name, stamp(data), { ...opts, jobId: ids.job(opts?.jobId) }),
  });
  const deliveries = workspaceDeliveries(q.deliveries, workspaceId, o);
  const slack = slackProducer(q.slack, workspaceId, ids, o.turns);
  return {
    deliveries,
    slack,
    refresh: stamped(() => q.refresh),
    weekly: { ...stamped(() => q.weekly), ...schedulers(() => q.weekly, ids, stamp) },
    digest: { ...stamped(() => q.digest), ...schedulers(() => q.digest, ids, stamp) },
  };
}

/**
 * A workspace's Slack jobs. With fair turns each job carries the priority `FairTurns` gives it in
 * its shard, so a workspace with a thousand jobs queued cannot hold back another's single one,
 * while its own jobs keep their order (several at once: one take per shard, in the order given).
 */
function slackProducer(
  shared: ShardedQueue<SlackJob>,
  workspaceId: string,
  ids: Ids,
  turns: FairTurns | undefined,
): SlackProducer {
  const stamp = (data: SlackJob): SlackJob => ({ ...data, workspaceId });
  const job = (j: { name: string; data: SlackJob; opts?: JobsOptions | undefined }, priority?: number) => ({
    name: j.name,
    data: stamp(j.data),
    opts: { ...j.opts, jobId: ids.job(j.opts?.jobId), ...(priority !== undefined ? { priority } : {}) },
  });
  if (!turns) {
    return {
      add: (name, data, opts) => {
        const j = job({ name, data, opts });
        return shared.add(j.name, j.data, j.opts);
      },
      addBulk: (jobs) => shared.addBulk(jobs.map((j) => job(j))),
    };
  }
  return {
    add: async (name, data, opts) => {
      const priority = await turns.take(shared.queueFor(SHARD_KEYS.slack(data)), workspaceId);
      const j = job({ name, data, opts }, priority);
      return shared.add(j.name, j.data, j.opts);
    },
    addBulk: async (jobs) => {
      const byShard = new Map<string, { shard: ReturnType<typeof shared.queueFor>; at: number[] }>();
      jobs.forEach((j, i) => {
        const shard = shared.queueFor(SHARD_KEYS.slack(j.data));
        const entry = byShard.get(shard.name) ?? { shard, at: [] };
        entry.at.push(i);
        byShard.set(shard.name, entry);
      });
      const priorities: number[] = [];
      for (const { shard, at } of byShard.values()) {
        const first = await turns.take(shard, workspaceId, at.length);
        at.forEach((i, k) => (priorities[i] = Math.min(first + k, PRIORITY_LIMIT)));
      }
      return shared.addBulk(jobs.map((j, i) => job(j, priorities[i])));
    },
  };
}

/** One workspace's producer of the deliveries queue (what the intake pump adds its deliveries through). */
export function workspaceDeliveries(
  shared: ShardedQueue<DeliveriesJob>,
  workspaceId: string,
  o: Pick<WorkspaceQueueOptions, "ownIds">,
): DeliveriesProducer {
  const ids = idsOf(workspaceId, o.ownIds);
  const stamp = (data: DeliveriesJob): DeliveriesJob => ({ ...data, workspaceId });
  return {
    add: (name, data, opts) => shared.add(name, stamp(data), { ...opts, jobId: ids.job(opts?.jobId) }),
    addBulk: (jobs) =>
      shared.addBulk(
        jobs.map((j) => ({ ...j, data: stamp(j.data), opts: { ...j.opts, jobId: ids.job(j.opts?.jobId) } })),
      ),
    shardIndexOf: (data) => shared.shardIndexOf(data),
  };
}

/** How a workspace's job and scheduler ids are made, and which scheduler ids are its own. */
interface Ids {
  /** A job's id: the caller's (or a random one) under the workspace's prefix; unchanged for the single workspace. */
  job(id: string | undefined): string | undefined;
  scheduler(id: string): string;
  /** Its own scheduler's id as the caller made it; undefined for another workspace's. */
  ownScheduler(key: string): string | undefined;
  /** What its ids start with (many workspaces); undefined: every id is its own. */
  own?: string;
}

function idsOf(workspaceId: string, own: boolean): Ids {
  if (!own) return { job: (id) => id, scheduler: (id) => id, ownScheduler: (key) => key };
  const prefix = jobId("w", workspaceId, "");
  const scoped = (id: string) => (id.startsWith(prefix) ? id : `${prefix}${id}`);
  return {
    own: prefix,
    // A random id when the caller gave none: per-workspace depth is read from ids alone.
    job: (id) => scoped(id ?? randomUUID()),
    scheduler: scoped,
    ownScheduler: (key) => (key.startsWith(prefix) ? key.slice(prefix.length) : undefined),
  };
}

/**
 * The ids of the queue's job schedulers that start with `prefix`, in BullMQ's order (by next
 * run; `asc` or not): one read of its scheduler set's members, and only its own are then read,
 * not every workspace's (at start each workspace checks its own: reading every scheduler for
 * each of them was workspaces × schedulers hash reads).
 */
async function ownSchedulerIds(q: Queue, prefix: string, asc: boolean): Promise<string[]> {
  const client = await q.backend.client;
  const key = q.toKey("repeat");
  const ids = asc ? await client.zrange(key, 0, -1) : await client.zrevrange(key, 0, -1);
  return ids.filter((id) => id.startsWith(prefix));
}

function schedulers<T>(shared: () => Queue<T>, ids: Ids, stamp: (data: T) => T): JobSchedulers<T> {
  return {
    upsertJobScheduler: (id, repeat, template) =>
      // BullMQ types the scheduler id as a job name, a conditional type of T: the untyped queue takes it.
      (shared() as Queue).upsertJobScheduler(ids.scheduler(id), repeat, {
        ...template,
        data: stamp(template.data),
      }),
    getJobScheduler: (id) => shared().getJobScheduler(ids.scheduler(id)),
    // Its own only, under the ids the caller made them with.
    getJobSchedulers: async (start = 0, end = -1, asc = false) => {
      const q = shared();
      if (!ids.own) return q.getJobSchedulers(start, end, asc);
      const own = await ownSchedulerIds(q, ids.own, asc);
      const page = own.slice(start, end < 0 ? own.length + end + 1 : end + 1);
      const found = await Promise.all(page.map((id) => q.getJobScheduler(id)));
      return found.flatMap((j) => (j ? [{ ...j, key: ids.ownScheduler(j.key) ?? j.key }] : []));
    },
    removeJobScheduler: (id) => shared().removeJobScheduler(ids.scheduler(id)),
  };
}
