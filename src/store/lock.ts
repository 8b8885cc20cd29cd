import { randomUUID } from "node:crypto";
import type { RedisClient as Redis } from "./redis.js";
import { luaScript } from "./lua-script.js";

const RELEASE = luaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`,
);

/**
 * A short Redis lock (SET NX PX) released only by its holder. It expires on its own, so a
 * worker killed while holding it blocks others for at most `ttlMs`. The release is sent once
 * however often it is called, so it can go in the same write as the holder's last command and
 * again from a `finally`.
 */
export async function tryLock(
  redis: Redis,
  key: string,
  ttlMs: number,
): Promise<(() => Promise<void>) | undefined> {
  const token = randomUUID();
  const ok = await redis.set(key, token, "PX", ttlMs, "NX");
  if (ok !== "OK") return undefined;
  let released: Promise<void> | undefined;
  return () => (released ??= RELEASE.run(redis, 1, key, token).then(() => undefined));
}
