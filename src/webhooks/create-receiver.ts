import type { RedisClient as Redis, RedisTarget } from "../store/redis.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { DeliveryHealthStore } from "../store/delivery-health.js";
import { stateKeys, type StateKeys } from "../store/keys.js";
import { createRedis, isCluster } from "../store/redis.js";
import { DeliveryRecorder } from "../intake/recorder.js";
import { DeliveryIngest } from "./ingest.js";
import { Spool } from "./spool.js";

export interface ReceiverParts {
  /** The receiver's own connection; fail-fast (`command`) in production, so it can spool instead of waiting. */
  redis: Redis;
  prefix: string;
  spool: Spool;
  logger: Logger;
  metrics?: Metrics;
  /** Where dead letters go; default: a store over `redis`. */
  health?: DeliveryHealthStore;
  /** How long a record may take before the delivery is spooled instead; default 1 s. */
  recordTimeoutMs?: number;
}

/** Everything between the webhook route and Redis or the spool. */
export interface Receiver {
  /** The receiver's connection (multi-workspace mode records each workspace's deliveries over it too). */
  redis: Redis;
  keys: StateKeys;
  health: DeliveryHealthStore;
  recorder: DeliveryRecorder;
  ingest: DeliveryIngest;
  spool: Spool;
  /** Stops the replay timer (the connection is the caller's, unless opened here). */
  close(): Promise<void>;
}

/** The receiver's parts over a connection the caller holds (tests give a dead or a slow one). */
export function createReceiver(p: ReceiverParts): Receiver {
  // On a cluster the keys carry hash tags.
  const keys = stateKeys(p.prefix, { cluster: isCluster(p.redis) });
  const health = p.health ?? new DeliveryHealthStore(p.redis, keys);
  const recorder = new DeliveryRecorder(p.redis, { key: keys.intake }, p.recordTimeoutMs ?? 1_000);
  const ingest = new DeliveryIngest(recorder, p.spool, p.logger, p.metrics);
  return {
    redis: p.redis,
    keys,
    health,
    recorder,
    ingest,
    spool: p.spool,
    close: async () => {
      ingest.close();
    },
  };
}

/** How long the web role waits for Redis before listening anyway (deliveries then spool). */
const READY_WAIT_MS = 2_000;

/**
 * The web role's receiver: its own fail-fast connection, the spool in `spoolDir`, and a replay
 * of the spool at start-up and whenever Redis comes back. Closing it closes the connection.
 */
export async function openReceiver(o: {
  redisUrl: string;
  /** Set: the receiver's connection is a cluster one (REDIS_CLUSTER_NODES). */
  clusterNodes?: RedisTarget["clusterNodes"];
  prefix: string;
  spoolDir: string;
  logger: Logger;
  metrics: Metrics;
  /** Where dead letters go; default: the deployment's own, over the receiver's connection. */
  health?: DeliveryHealthStore;
}): Promise<Receiver> {
  const redis = createRedis({ url: o.redisUrl, clusterNodes: o.clusterNodes }, "command", o.logger);
  // Give the connection a moment before listening, so the first deliveries are recorded
  // rather than spooled; a Redis that is down does not hold up the start.
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, READY_WAIT_MS);
    if (redis.status === "ready") done();
    else redis.once("ready", done);
  });
  const receiver = createReceiver({
    redis,
    prefix: o.prefix,
    spool: new Spool(o.spoolDir, o.logger),
    logger: o.logger,
    metrics: o.metrics,
    ...(o.health ? { health: o.health } : {}),
  });
  // Replay at start-up and whenever Redis comes back.
  const replay = () =>
    void receiver.ingest.replay().catch((err: unknown) => o.logger.warn({ err }, "spool replay failed"));
  redis.on("ready", replay);
  // Deliveries a previous process spooled are replayed now when Redis is already up (its
  // "ready" came before the listener above); when it is down, the next "ready" does it.
  if (redis.status === "ready") replay();
  return {
    ...receiver,
    close: async () => {
      // Closing a producer whose connection is down may reject; the connection goes next anyway.
      await receiver.close().catch(() => undefined);
      redis.disconnect();
    },
  };
}
