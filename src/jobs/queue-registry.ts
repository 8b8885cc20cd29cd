import type { Queue } from "bullmq";
import type { Logger } from "../log.js";
import type { RedisClient as Redis } from "../store/redis.js";
import {
  QUEUE_NAMES,
  type AlertsJob,
  type DeliveriesJob,
  type DigestJob,
  type QueueName,
  type ReconcileJob,
  type RefreshJob,
  type SlackJob,
  type WeeklyJob,
} from "./job-types.js";
import { physicalName, physicalNames, SHARD_KEYS, SINGLE_REDIS, type QueueLayout } from "./queue-layout.js";
import { JOB_DEFAULTS } from "./retry-policy.js";
import { makeQueue, shardedQueue, type ShardedQueue } from "./sharded-queue.js";

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

/** The deliveries queue, sharded by thread, over the given connection. */
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
 * The queue registry: producer side of every queue, sharing one connection. Each queue heals
 * itself if its set-up failed.
 */
export function createQueues(
  connection: Redis,
  prefix: string,
  logger?: Logger,
  layout: QueueLayout = SINGLE_REDIS,
): Queues {
  const deliveries = deliveriesQueue(connection, prefix, layout, logger);
  const single = <T>(name: QueueName, defaults: Parameters<typeof makeQueue>[3]) =>
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
