import { isCluster, type RedisClient } from "./redis.js";

/**
 * How long an idle blocking wait on Redis lasts before it looks again (seconds), at most: a
 * worker's fetch (BullMQ's `drainDelay`, and while a delayed job waits: jobs/lock-renewal.ts)
 * and the intake pump's wait. A job or delivery added wakes it at once (BullMQ's marker, the
 * intake's BLMOVE), and a delayed job when it is due, so this only spaces the idle looks. On
 * one Redis a lost wake-up comes only with a restart, which breaks the blocking call at once:
 * 30 s. On a cluster a frozen master holds the call silently until it times out: 10 s there,
 * which bounds how long a shard's worker waits on it (issue 33's matrix).
 */
export const IDLE_LOOK_SECONDS = { single: 30, cluster: 10 } as const;

/** The idle look of blocking waits over `connection` (one Redis or a cluster). */
export const idleLookSeconds = (connection: RedisClient): number =>
  isCluster(connection) ? IDLE_LOOK_SECONDS.cluster : IDLE_LOOK_SECONDS.single;
