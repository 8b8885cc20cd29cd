import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { ThreadActivityStore } from "../../src/store/thread-activity.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("ThreadActivityStore (Redis)", () => {
  let redis: Redis;
  const prefix = uniquePrefix("activity");
  const keys = stateKeys(prefix);
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });
  afterAll(() => {
    redis.disconnect();
  });

  it("answers when the thread's last message was routed: the latest note, whatever order they came in", async () => {
    const activity = new ThreadActivityStore(redis, keys);
    expect(await activity.lastMessageAt("t1")).toBeUndefined();
    await activity.noteMessage("t1", 1_000);
    await activity.noteMessage("t1", 2_500);
    await activity.noteMessage("t1", 2_000); // routed late by another process
    expect(await activity.lastMessageAt("t1")).toBe(2_500);
    expect(await activity.lastMessageAt("t2")).toBeUndefined();
    // Kept past any counts window and its retries, not forever.
    const ttl = await redis.pttl(keys.threadMessageAt("t1"));
    expect(ttl).toBeGreaterThan(3_000_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it("a value that is not a time reads as unknown (the counts edit then reads the listing afresh)", async () => {
    await redis.set(keys.threadMessageAt("t3"), "not-a-time");
    expect(await new ThreadActivityStore(redis, keys).lastMessageAt("t3")).toBeUndefined();
  });
});
