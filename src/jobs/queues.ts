import { Queue, type Job, type JobsOptions, type JobType } from "bullmq";
import type { RedisClient as Redis } from "../store/redis.js";
import type { Logger } from "../log.js";
import { healingQueue, type HealingQueue } from "./healing-queue.js";
import type { WebhookEvent, ThreadEvent } from "../insight/schemas.js";
import type { ThreadDigest } from "../domain/thread-digest.js";
import type { DigestEvery } from "../domain/subscription.js";

export const QUEUE_NAMES = {
  deliveries: "deliveries",
  slack: "slack-out",
  refresh: "enrich-refresh",
  weekly: "weekly",
  reconcile: "reconcile",
  digest: "digest",
  alerts: "alerts",
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** A webhook delivery, as recorded by the receiver. */
export interface DeliveryJob {
  deliveryId: string;
  receivedAt: string;
  event: WebhookEvent;
  /** The receiver's script checked the 7-day marker (every job since the intake list). */
  deduplicated?: true;
}

/**
 * Several deliveries of one intake batch that go to the same shard, in one job: in a burst the
 * pump queues a batch's deliveries together, so BullMQ's add, fetch and completion are paid
 * once a batch instead of once a delivery. Each delivery is still processed (and, should it
 * fail, retried and recorded as failed) on its own: see `process-batch.ts`.
 */
export interface DeliveryBatchJob {
  batch: DeliveryJob[];
}

/** What the deliveries queue holds: one delivery, or a batch of them. */
export type DeliveriesJob = DeliveryJob | DeliveryBatchJob;

export const isDeliveryBatch = (data: DeliveriesJob): data is DeliveryBatchJob => "batch" in data;

/**
 * A delivery's job of its own: named after its webhook type, its delivery id as job id, so that
 * queueing it again while its job is kept is a no-op.
 */
export const jobOfOwn = (delivery: DeliveryJob): { name: string; data: DeliveryJob; opts: JobsOptions } => ({
  name: delivery.event.webhookType,
  data: delivery,
  opts: { jobId: delivery.deliveryId },
});

/** The deliveries a job of the deliveries queue holds, in order. */
export const deliveriesOf = (data: DeliveriesJob): DeliveryJob[] =>
  isDeliveryBatch(data) ? data.batch : [data];

/**
 * One Slack effect. Digests carry the domain object; rendering happens at send time. Cards,
 * replies and DMs carry only ids: what they show is read when their turn comes.
 */
export type SlackJob =
  | {
      kind: "digest";
      channelId: string;
      digest: ThreadDigest;
      enrichedAtMs: number;
      /** The thread left this channel's filters: edit the card if there is one, never post (rule 10). */
      noLongerMatches?: boolean;
      /** Set when the job was delayed to a reserved per-channel slot. */
      slotAt?: number;
      /**
       * Slack refused the card for good when it was tried at once (send-now.ts): the job records
       * that failure as its own, without asking Slack a second time.
       */
      refusedAtOnce?: string;
    }
  | {
      kind: "card";
      channelId: string;
      threadId: string;
      /** `triage`: a button changed it; `counts`: new messages arrived (counts read from the listing). */
      reason: "triage" | "counts";
      slotAt?: number;
    }
  | { kind: "replies"; channelId: string; threadId: string; slotAt?: number }
  | {
      kind: "dm";
      /** The throttle's key: the user's DM, one slot a second like a channel. */
      channelId: string;
      userId: string;
      text: string;
      /** The card the DM links to (its permalink is asked for at send time). */
      card?: { channel: string; ts: string };
      slotAt?: number;
    }
  | { kind: "notice"; channelId: string; text: string; slotAt?: number }
  | {
      /** A reminder set from a card (`digest.remind`), delayed to its time: jobs/remind.ts. */
      kind: "remind";
      /** The throttle's key: the user's DM, one slot a second like a channel. */
      channelId: string;
      userId: string;
      /** Its id in the person's reminders (store/reminders.ts); cancelled when gone. */
      reminderId: string;
      slotAt?: number;
    };

/** A later look at the listing for a thread whose digest went out without sentiment. */
export interface RefreshJob {
  event: ThreadEvent;
  attempt: number;
}

/** A job of the `weekly` queue: one channel's summary. */
export interface WeeklyJob {
  channelId: string;
  trigger: "schedule" | "now";
  /** The zone dates are shown in (and a scheduled run's week is named in). */
  timeZone: string;
  requestedBy?: string;
}

/** A job of the `reconcile` queue: one pass over every followed group; it carries nothing. */
export type ReconcileJob = Record<string, never>;

/** A job of the `digest` queue: flush one channel's pending digest (a period's end, or `digest now`). */
export interface DigestJob {
  channelId: string;
  trigger: "schedule" | "now";
  /** The period a scheduled job flushes (the subscriptions in digest mode with this `every`). */
  every?: DigestEvery;
  /** The zone the scheduler fires in; a change of the channel's zone re-makes the scheduler. */
  timeZone?: string;
  requestedBy?: string;
}

/** A job of the `alerts` queue: one evaluation of every channel's alerts; it carries nothing. */
export type AlertsJob = Record<string, never>;

const keep = {
  removeOnComplete: { age: 3_600, count: 5_000 },
  removeOnFail: { age: 7 * 86_400, count: 5_000 },
};

export const JOB_DEFAULTS: Record<"deliveries" | "slack" | "refresh" | "weekly" | "digest", JobsOptions> = {
  deliveries: { attempts: 8, backoff: { type: "exponential", delay: 1_000, jitter: 0.5 }, ...keep },
  // Slack rate limits and the per-channel throttle delay jobs without spending attempts.
  // A Slack outage must not use up a digest's attempts: see `cappedBackoff`.
  slack: { attempts: 50, backoff: { type: "capped" }, ...keep },
  refresh: { attempts: 3, backoff: { type: "exponential", delay: 5_000 }, ...keep },
  // Retries wait for the Insight Service to come back; nothing is posted before a run can finish.
  weekly: {
    attempts: 3,
    backoff: { type: "exponential", delay: 60_000, jitter: 0.3 },
    removeOnComplete: { age: 14 * 86_400, count: 1_000 },
    removeOnFail: { age: 30 * 86_400, count: 1_000 },
  },
  // A flush is idempotent (digest/flush.ts): retries post nothing twice; Slack or a busy
  // channel lock waits a few minutes at most.
  digest: {
    attempts: 8,
    backoff: { type: "exponential", delay: 2_000, jitter: 0.3 },
    removeOnComplete: { age: 86_400, count: 2_000 },
    removeOnFail: { age: 7 * 86_400, count: 2_000 },
  },
};

/**
 * Exponential from 2 s, doubling up to 5 min, with ±25% jitter: 50 attempts outlast about
 * three hours of Slack failing (exponential without a cap gives up after half an hour, or
 * waits for days).
 */
export function cappedBackoff(attemptsMade: number, random: () => number = Math.random): number {
  const base = Math.min(2_000 * 2 ** Math.max(0, attemptsMade - 1), 300_000);
  return Math.round(base * (0.75 + random() * 0.5));
}

/**
 * Where queues live. On a Redis Cluster every key of a BullMQ queue must share one slot, so
 * each queue's name carries a hash tag (`{deliveries-0}`), and the busy queues (deliveries,
 * slack-out, enrich-refresh) are split into `shards` queues whose tags spread over the masters.
 * On one Redis with one shard the names stay as they always were (`deliveries`).
 */
export interface QueueLayout {
  cluster: boolean;
  /** Shards of each sharded queue; at least 1. */
  shards: number;
}

/** Four shards on a cluster (enough to reach every master of a 3-master cluster, most of the time); one on a single Redis. */
export const DEFAULT_SHARDS = { cluster: 4, single: 1 } as const;

export function queueLayout(cluster: boolean, shards?: number): QueueLayout {
  const n = shards ?? (cluster ? DEFAULT_SHARDS.cluster : DEFAULT_SHARDS.single);
  return { cluster, shards: Math.max(1, Math.floor(n)) };
}

export const SINGLE_REDIS: QueueLayout = { cluster: false, shards: 1 };

const SHARDED: ReadonlySet<QueueName> = new Set([
  QUEUE_NAMES.deliveries,
  QUEUE_NAMES.slack,
  QUEUE_NAMES.refresh,
]);

/** The BullMQ name of one shard of a queue. */
export function physicalName(name: QueueName, shard: number, layout: QueueLayout): string {
  const sharded = SHARDED.has(name) && layout.shards > 1;
  if (layout.cluster) return sharded || SHARDED.has(name) ? `{${name}-${shard}}` : `{${name}}`;
  return sharded && shard > 0 ? `${name}-${shard}` : name;
}

/** Every BullMQ name of a queue, shard 0 first. */
export function physicalNames(name: QueueName, layout: QueueLayout): string[] {
  const n = SHARDED.has(name) ? layout.shards : 1;
  return Array.from({ length: n }, (_, i) => physicalName(name, i, layout));
}

/** The shard of a key (FNV-1a): the same thread or channel always lands on the same shard. */
export function shardOf(key: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % Math.max(1, shards);
}

/** What a feature needs to queue a job: `add` (a Queue is one too). */
export interface Producer<T> {
  add(name: string, data: T, opts?: JobsOptions): Promise<unknown>;
}

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

/** The key each sharded queue is split by. */
export const SHARD_KEYS = {
  // A batch holds one shard's deliveries (the pump splits by `shardIndexOf`): its first one's key.
  deliveries: (d: DeliveriesJob): string => {
    const [first] = deliveriesOf(d);
    return first ? (first.event.payload.threadId ?? first.event.payload.groupId) : "";
  },
  slack: (j: SlackJob) => j.channelId,
  refresh: (r: RefreshJob) => r.event.payload.threadId,
} as const;

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
    healingQueue(
      () => new Queue<T>(physical, { connection, prefix, defaultJobOptions }),
      (err) => logger?.warn({ queue: physical, err }, "queue set-up had failed; made it again"),
    ),
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

/**
 * Every queue of the app, built once over one connection: the producers of each feature, and
 * what reads them all (status, /metrics, the admin page: every shard). Getters, because a
 * queue whose set-up failed is replaced on its next use (see `healingQueue`).
 */
export interface Queues {
  readonly layout: QueueLayout;
  readonly deliveries: ShardedQueue<DeliveriesJob>;
  readonly slack: ShardedQueue<SlackJob>;
  readonly refresh: ShardedQueue<RefreshJob>;
  readonly weekly: Queue<WeeklyJob>;
  readonly reconcile: Queue<ReconcileJob>;
  readonly digest: Queue<DigestJob>;
  readonly alerts: Queue<AlertsJob>;
  /** The queue (one shard) of that BullMQ name, or undefined when the app has none. */
  byName(name: string): Queue | undefined;
  /** The BullMQ names of a queue of QUEUE_NAMES: what its workers consume. */
  namesOf(name: string): string[];
  /** Every queue and every shard, in QUEUE_NAMES order. */
  all(): Queue[];
  close(): Promise<void>;
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

/** The receiver's producer: the deliveries queue, sharded by thread, over its own connection. */
export function deliveriesQueue(
  connection: Redis,
  prefix: string,
  layout: QueueLayout = SINGLE_REDIS,
  logger?: Logger,
): ShardedQueue<DeliveriesJob> {
  return shardedQueue<DeliveriesJob>(
    connection,
    prefix,
    QUEUE_NAMES.deliveries,
    SHARD_KEYS.deliveries,
    layout,
    JOB_DEFAULTS.deliveries,
    logger,
  );
}

/**
 * The queue registry: producer side of every queue, sharing one connection (for the receiver,
 * a fail-fast one: a producer that cannot reach Redis must say so at once, so the receiver can
 * spool instead of hanging). Each queue heals itself if its set-up failed.
 */
export function createQueues(
  connection: Redis,
  prefix: string,
  logger?: Logger,
  layout: QueueLayout = SINGLE_REDIS,
): Queues {
  const deliveries = deliveriesQueue(connection, prefix, layout, logger);
  const single = <T>(name: QueueName, defaults: JobsOptions) =>
    makeQueue<T>(connection, prefix, physicalName(name, 0, layout), defaults, logger);
  const slack = shardedQueue<SlackJob>(
    connection,
    prefix,
    QUEUE_NAMES.slack,
    SHARD_KEYS.slack,
    layout,
    JOB_DEFAULTS.slack,
    logger,
  );
  const refresh = shardedQueue<RefreshJob>(
    connection,
    prefix,
    QUEUE_NAMES.refresh,
    SHARD_KEYS.refresh,
    layout,
    JOB_DEFAULTS.refresh,
    logger,
  );
  const weekly = single<WeeklyJob>(QUEUE_NAMES.weekly, JOB_DEFAULTS.weekly);
  const digest = single<DigestJob>(QUEUE_NAMES.digest, JOB_DEFAULTS.digest);
  // The reconcile and alerts schedulers set their jobs' options themselves.
  const reconcile = single<ReconcileJob>(QUEUE_NAMES.reconcile, {});
  const alerts = single<AlertsJob>(QUEUE_NAMES.alerts, {});
  const every = (): Queue[] => [
    ...deliveries.shards(),
    ...slack.shards(),
    ...refresh.shards(),
    weekly(),
    reconcile(),
    digest(),
    alerts(),
  ];
  const logical = new Set<string>(Object.values(QUEUE_NAMES));
  return {
    layout,
    deliveries,
    slack,
    refresh,
    get weekly() {
      return weekly();
    },
    get reconcile() {
      return reconcile();
    },
    get digest() {
      return digest();
    },
    get alerts() {
      return alerts();
    },
    byName: (name) => every().find((q) => q.name === name),
    namesOf: (name) => (logical.has(name) ? physicalNames(name as QueueName, layout) : [name]),
    all: every,
    close: async () => {
      await Promise.all(
        [deliveries, slack, refresh, weekly, reconcile, digest, alerts].map((q) => q.close()),
      );
    },
  };
}

/** Job ids may not contain ':' in BullMQ (it is the key separator). */
export const jobId = (...parts: (string | number)[]) =>
  parts.map((p) => String(p).replace(/:/g, "_")).join("|");
