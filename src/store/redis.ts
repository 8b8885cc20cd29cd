import { Redis, type RedisOptions } from "ioredis";
import type { Logger } from "../log.js";

/**
 * Three kinds of connection:
 * - `command`: fails fast while disconnected (no offline queue, one retry), so the webhook
 *   receiver can fall back to its spool instead of waiting;
 * - `shared`: stores, commands and producers; queues commands through short outages;
 * - `blocking`: what BullMQ workers need (`maxRetriesPerRequest: null`), reconnecting forever.
 */
export function createRedis(
  url: string,
  kind: "command" | "shared" | "blocking",
  logger: Logger,
  extra: RedisOptions = {},
): Redis {
  const base: RedisOptions =
    kind === "command"
      ? { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 2_000 }
      : kind === "shared"
        ? { maxRetriesPerRequest: 3, connectTimeout: 5_000 }
        : { maxRetriesPerRequest: null, enableReadyCheck: true };
  const redis = new Redis(url, {
    ...base,
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 6), 2_000),
    ...extra,
  });
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

/** Resolves with the value, or rejects after `ms` (the command may still complete later). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
