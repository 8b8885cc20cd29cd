import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { silentLogger } from "../../src/log.js";
import { tryLock } from "../../src/store/lock.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("tryLock", () => {
  let redis: Redis;
  let prefix: string;
  let key: string;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("lock");
    key = `${prefix}:state:lock:digest:C1:T1`;
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });

  it("gives the lock to one caller at a time, and again after release", async () => {
    const release = await tryLock(redis, key, 10_000);
    expect(release).toBeTypeOf("function");
    expect(await tryLock(redis, key, 10_000)).toBeUndefined();
    await release?.();
    expect(await redis.exists(key)).toBe(0);
    const again = await tryLock(redis, key, 10_000);
    expect(again).toBeTypeOf("function");
    await again?.();
  });

  it("of many concurrent callers exactly one wins", async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => tryLock(redis, key, 10_000)));
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
  });

  it("locks of different keys are independent", async () => {
    const a = await tryLock(redis, key, 10_000);
    const b = await tryLock(redis, `${key}-other`, 10_000);
    expect(a).toBeDefined();
    expect(b).toBeDefined();
  });

  it("expires on its own after ttlMs", async () => {
    await tryLock(redis, key, 5_000);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it("a holder whose lock expired cannot release the next holder's lock", async () => {
    const stale = await tryLock(redis, key, 10_000);
    // The first holder's lock runs out (as after a stall longer than its TTL).
    await redis.del(key);
    const current = await tryLock(redis, key, 10_000);
    expect(current).toBeDefined();
    await stale?.();
    expect(await redis.exists(key)).toBe(1);
    expect(await tryLock(redis, key, 10_000)).toBeUndefined();
    await current?.();
    expect(await redis.exists(key)).toBe(0);
  });

  it("releasing twice is harmless", async () => {
    const release = await tryLock(redis, key, 10_000);
    await release?.();
    const next = await tryLock(redis, key, 10_000);
    await release?.();
    expect(await redis.exists(key)).toBe(1);
    await next?.();
  });

  it("sends its release once, however often it is called (once in the last write, again from finally)", async () => {
    const release = await tryLock(redis, key, 10_000);
    const evalshas = vi.spyOn(redis, "evalsha");
    const evals = vi.spyOn(redis, "eval");
    await Promise.all([release?.(), release?.()]);
    await release?.();
    expect(evalshas.mock.calls.length + evals.mock.calls.length).toBeLessThanOrEqual(2); // EVALSHA, EVAL if NOSCRIPT
    expect(evalshas).toHaveBeenCalledTimes(1);
    vi.restoreAllMocks();
    expect(await redis.exists(key)).toBe(0);
  });
});
