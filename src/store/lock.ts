import { randomUUID } from "node:crypto";
import type { RedisClient as Redis } from "./redis.js";

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * A short Redis lock (SET NX PX) released only by its holder. It expires on its own, so a
 * worker killed while holding it blocks others for at most `ttlMs`.
 */
export async function tryLock(
  redis: Redis,
  key: string,
  ttlMs: number,
): Promise<(() => Promise<void>) | undefined> {
  const token = randomUUID();
  const ok = await redis.set(key, token, "PX", ttlMs, "NX");
  if (ok !== "OK") return undefined;
  return async () => {
    await redis.eval(RELEASE, 1, key, token);
  };
}
