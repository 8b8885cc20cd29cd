import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { CountsDueStore } from "../../src/store/counts-due.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("CountsDueStore (Redis)", () => {
  let redis: Redis;
  const prefix = uniquePrefix("counts-due");
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

  it("gathers a channel's cards due at one time, each once, apart from other times and channels", async () => {
    const due = new CountsDueStore(redis, keys);
    expect(await due.add("C1", 5_000, { threadId: "t1", window: 7 })).toBe(true);
    expect(await due.add("C1", 5_000, { threadId: "t1", window: 7 })).toBe(true); // another process, the same card
    expect(await due.add("C1", 5_000, { threadId: "t2", window: 3 })).toBe(true);
    expect(await due.add("C1", 6_000, { threadId: "t3", window: 7 })).toBe(true);
    expect(await due.add("C2", 5_000, { threadId: "t4", window: 7 })).toBe(true);
    const taken = await due.take("C1", 5_000);
    expect(taken.sort((a, b) => a.threadId.localeCompare(b.threadId))).toEqual([
      { threadId: "t1", window: 7 },
      { threadId: "t2", window: 3 },
    ]);
    expect(await due.take("C2", 5_000)).toEqual([{ threadId: "t4", window: 7 }]);
    // Kept a while, not forever.
    const ttl = await redis.pttl(keys.countsDue("C1", 6_000));
    expect(ttl).toBeGreaterThan(3_000_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
  });

  it("once taken, a time takes no more cards (the caller asks for the card's own edit); a job run again takes the same", async () => {
    const due = new CountsDueStore(redis, keys);
    await due.add("C1", 5_000, { threadId: "t1", window: 7 });
    expect(await due.take("C1", 5_000)).toEqual([{ threadId: "t1", window: 7 }]);
    expect(await due.add("C1", 5_000, { threadId: "t2", window: 7 })).toBe(false);
    // The mark outlives any add held up past its time, not the hour the cards are kept.
    const markTtl = await redis.pttl(keys.countsDueTaken("C1", 5_000));
    expect(markTtl).toBeGreaterThan(500_000);
    expect(markTtl).toBeLessThanOrEqual(600_000);
    // The job died before it was done: its retry finds the same cards.
    expect(await due.take("C1", 5_000)).toEqual([{ threadId: "t1", window: 7 }]);
    await due.done("C1", 5_000);
    expect(await due.take("C1", 5_000)).toEqual([]);
    expect(await due.add("C1", 5_000, { threadId: "t3", window: 7 })).toBe(false);
  });

  it("a thread id with a bar in it comes back whole", async () => {
    const due = new CountsDueStore(redis, keys);
    await due.add("C1", 1_000, { threadId: "a|b", window: 12 });
    expect(await due.take("C1", 1_000)).toEqual([{ threadId: "a|b", window: 12 }]);
  });
});
