import { Cluster, Redis, type ClusterOptions, type RedisOptions } from "ioredis";
import type { Logger } from "../log.js";

/** A connection to one Redis or to a Redis Cluster: stores, scripts and BullMQ take either. */
export type RedisClient = Redis | Cluster;

/** Where Redis is: `REDIS_URL` alone, or a cluster seeded by `clusterNodes` (auth and TLS from the URL). */
export interface RedisTarget {
  url: string;
  clusterNodes?: readonly { host: string; port: number }[] | undefined;
}

export type ConnectionKind = "command" | "shared" | "blocking";

/**
 * Three kinds of connection:
 * - `command`: fails fast while disconnected (no offline queue, one retry), so the webhook
 *   receiver can fall back to its spool instead of waiting;
 * - `shared`: stores, commands and producers; queues commands through short outages;
 * - `blocking`: what BullMQ workers need (`maxRetriesPerRequest: null`), reconnecting forever.
 *
 * With `clusterNodes` the same kinds are ioredis `Cluster`s; `extra` then applies to each node's connection.
 */
export function createRedis(url: string, kind: ConnectionKind, logger: Logger, extra?: RedisOptions): Redis;
export function createRedis(
  target: RedisTarget,
  kind: ConnectionKind,
  logger: Logger,
  extra?: RedisOptions,
): RedisClient;
export function createRedis(
  target: string | RedisTarget,
  kind: ConnectionKind,
  logger: Logger,
  extra: RedisOptions = {},
): RedisClient {
  const t = typeof target === "string" ? { url: target } : target;
  const base = perKind(kind);
  const retryStrategy = (times: number) => Math.min(50 * 2 ** Math.min(times, 6), 2_000);
  const redis: RedisClient =
    t.clusterNodes && t.clusterNodes.length > 0
      ? new Cluster([...t.clusterNodes], clusterOptions(t.url, kind, base, extra, retryStrategy))
      : new Redis(t.url, { ...base, retryStrategy, ...extra });
  let wasDown = false;
  redis.on("error", (err: Error) => {
    // ioredis repeats the same connection error on every retry; log once per outage.
    if (!wasDown) logger.warn({ err, kind }, "Redis connection error; retrying");
    wasDown = true;
  });
  redis.on("ready", () => {
    if (wasDown) logger.info({ kind }, "Redis connection restored");
    wasDown = false;
  });
  return redis;
}

function perKind(kind: ConnectionKind): RedisOptions {
  return kind === "command"
    ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 2_000 }
    : kind === "shared"
      ? { maxRetriesPerRequest: 3, connectTimeout: 5_000 }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
}

/**
 * Cluster options of a kind. User, password, database-less TLS come from `REDIS_URL`'s form
 * (`rediss://user:pass@host`): a managed cluster answers its seeds with the same credentials.
 */
export function clusterOptions(
  url: string,
  kind: ConnectionKind,
  base: RedisOptions = perKind(kind),
  extra: RedisOptions = {},
  retryStrategy: (times: number) => number = () => 1_000,
): ClusterOptions {
  const u = new URL(url);
  const tls = u.protocol === "rediss:";
  const { enableOfflineQueue, enableAutoPipelining, ...nodeOptions } = { ...base, ...extra };
  return {
    enableOfflineQueue: enableOfflineQueue ?? true,
    // A cluster pipelines per node itself; its nodes' own connections must not.
    ...(enableAutoPipelining ? { enableAutoPipelining } : {}),
    clusterRetryStrategy: retryStrategy,
    // A failover takes the cluster down for a few seconds (node timeout + election): commands
    // wait through it in small steps, except the receiver's, which spools instead.
    retryDelayOnClusterDown: 200,
    retryDelayOnFailover: 200,
    retryDelayOnTryAgain: 200,
    maxRedirections: kind === "command" ? 2 : 50,
    slotsRefreshTimeout: 2_000,
    // TLS certificates name the hosts the seeds were given as, not the IPs the cluster reports.
    ...(tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
    redisOptions: {
      ...nodeOptions,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
      ...(tls ? { tls: {} } : {}),
    },
  };
}

/** Whether this connection is a cluster (BullMQ needs hash tags then, see jobs/queues.ts). */
export const isCluster = (r: RedisClient): r is Cluster => "isCluster" in r && r.isCluster === true;

/** Resolves with the value, or rejects after `ms` (the command may still complete later). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
