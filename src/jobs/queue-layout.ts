import {
  deliveriesOf,
  QUEUE_NAMES,
  type DeliveriesJob,
  type QueueName,
  type RefreshJob,
  type SlackJob,
} from "./job-types.js";

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

/** Whether a queue of QUEUE_NAMES is split into shards. */
export const isSharded = (name: QueueName): boolean => SHARDED.has(name);

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
