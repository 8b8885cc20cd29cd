import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from "ioredis";
import type { Logger } from "../log.js";
import { coalesceConnectionWrites } from "./coalesce-writes.js";

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
 * With `clusterNodes` the same kinds are ioredis `Cluster`s; `extra` then applies to each node's
 * connection. On a `blocking` cluster, the copies BullMQ makes of it for each
 * worker's blocking fetch get the options that fetch needs (see `BLOCKING_FETCH`).
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
  const cluster = (): Cluster => {
    const c = new Cluster(
      [...(t.clusterNodes ?? [])],
      clusterOptions(t.url, kind, base, extra, retryStrategy),
    );
    return kind === "blocking" ? copiedForBlockingFetches(c) : c;
  };
  const redis: RedisClient =
    t.clusterNodes && t.clusterNodes.length > 0
      ? cluster()
      : new Redis(t.url, { ...base, retryStrategy, ...extra });
  // Commands issued in one turn of the event loop leave in one write (store/coalesce-writes.ts).
  // Not the receiver's: it already sends a turn's deliveries as one RPUSH from the turn's check
  // phase, which a cork would hold for another turn.
  if (kind !== "command") coalesceConnectionWrites(redis);
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

/**
 * How a worker's blocking fetch talks to a cluster. BullMQ gives each worker a copy of the
 * connection it is given (`duplicate()`) for its BZPOPMIN on the queue's marker key, and, when
 * that command has not settled a second after its timeout, drops the copy and connects it again
 * (its watchdog, redis-queue-backend.js `resetBlockedConnection`), awaiting `connect()`.
 *
 * - `enableReadyCheck: false`: after a master is killed, the cluster says `cluster_state:fail`
 *   until its replica is promoted (node timeout plus election, seconds). A `connect()` in that
 *   window fails ioredis' ready check, which reconnects on its own and never settles the promise
 *   it returned (ioredis #709, #741; test/cluster/blocking-fetch.test.ts). BullMQ's worker loop
 *   awaited it forever: that worker fetched nothing again, and its queue's delayed jobs were
 *   never promoted (issue 33). Without the check `connect()` settles once the slots are read;
 *   a command sent while the cluster is still down gets CLUSTERDOWN, retried below.
 * - `retryDelayOnFailover: 0`: a BZPOPMIN whose node died fails at once ("Connection is
 *   closed.") and BullMQ's loop asks again 100 ms later, instead of ioredis re-sending it for
 *   up to `maxRedirections` steps. Such a re-sent command outlived the watchdog that abandoned
 *   it, popped the queue's marker on the promoted master for nobody, and held the node's
 *   connection in front of the worker's next fetch.
 */
export const BLOCKING_FETCH = { enableReadyCheck: false, retryDelayOnFailover: 0 } as const;

/** Makes the copies BullMQ takes of `cluster` (its workers' blocking connections) with `BLOCKING_FETCH`. */
function copiedForBlockingFetches(cluster: Cluster): Cluster {
  const duplicate = cluster.duplicate.bind(cluster);
  return Object.assign(cluster, {
    duplicate: (nodes?: ClusterNode[], options?: ClusterOptions): Cluster =>
      duplicate(nodes, { ...options, ...BLOCKING_FETCH }),
  });
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
