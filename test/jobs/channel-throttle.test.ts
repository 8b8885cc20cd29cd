import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChannelThrottle } from "../../src/slack/outbound/channel-throttle.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const NOW = Date.parse("2025-03-05T18:00:00.000Z");

describe("ChannelThrottle", () => {
  let redis: Redis;
  let prefix: string;
  let keys: StateKeys;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("throttle");
    keys = stateKeys(prefix);
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });

  it("a free channel gets a slot now; successive reservations are gapMs apart", async () => {
    const t = new ChannelThrottle(redis, keys, 1_100);
    const slots = [];
    for (let i = 0; i < 4; i++) slots.push(await t.reserve("C1", NOW));
    expect(slots).toEqual([NOW, NOW + 1_100, NOW + 2_200, NOW + 3_300]);
  });

  it("concurrent reservations (several workers) still get distinct slots gapMs apart", async () => {
    const t = new ChannelThrottle(redis, keys, 1_100);
    const slots = await Promise.all(Array.from({ length: 10 }, () => t.reserve("C1", NOW)));
    expect([...slots].sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => NOW + i * 1_100));
  });

  it("a reservation after the last slot has passed is served at its own now", async () => {
    const t = new ChannelThrottle(redis, keys, 1_000);
    expect(await t.reserve("C1", NOW)).toBe(NOW);
    expect(await t.reserve("C1", NOW + 5_000)).toBe(NOW + 5_000);
    expect(await t.reserve("C1", NOW + 5_000)).toBe(NOW + 6_000);
  });

  it("uses the default gap of 1.1 s", async () => {
    const t = new ChannelThrottle(redis, keys);
    await t.reserve("C1", NOW);
    expect(await t.reserve("C1", NOW)).toBe(NOW + 1_100);
  });

  it("pushBack delays the next slot to the given time", async () => {
    const t = new ChannelThrottle(redis, keys, 1_000);
    await t.reserve("C1", NOW); // next free: NOW + 1000
    await t.pushBack("C1", NOW + 30_000, NOW); // Slack said Retry-After: 30
    expect(await t.reserve("C1", NOW + 100)).toBe(NOW + 30_000);
    expect(await t.reserve("C1", NOW + 100)).toBe(NOW + 31_000);
  });

  it("pushBack never pulls the next slot earlier", async () => {
    const t = new ChannelThrottle(redis, keys, 1_000);
    for (let i = 0; i < 5; i++) await t.reserve("C1", NOW); // next free: NOW + 5000
    await t.pushBack("C1", NOW + 2_000, NOW);
    expect(await t.reserve("C1", NOW)).toBe(NOW + 5_000);
  });

  it("channels are independent", async () => {
    const t = new ChannelThrottle(redis, keys, 1_000);
    await t.reserve("C1", NOW);
    await t.reserve("C1", NOW);
    await t.pushBack("C1", NOW + 60_000, NOW);
    expect(await t.reserve("C2", NOW)).toBe(NOW);
    expect(await t.reserve("C2", NOW)).toBe(NOW + 1_000);
    expect(await t.reserve("C1", NOW)).toBe(NOW + 60_000);
  });

  it("the slot key expires a minute after the last reserved slot", async () => {
    const t = new ChannelThrottle(redis, keys, 1_000);
    await t.reserve("C1", NOW);
    await t.reserve("C1", NOW); // slot NOW + 1000, next free NOW + 2000
    const ttl = await redis.pttl(keys.channelSlot("C1"));
    expect(ttl).toBeGreaterThan(61_000);
    expect(ttl).toBeLessThanOrEqual(62_000);
  });

  it("throttles of different prefixes (deployments) do not share slots", async () => {
    const other = uniquePrefix("throttle");
    try {
      const a = new ChannelThrottle(redis, keys, 1_000);
      const b = new ChannelThrottle(redis, stateKeys(other), 1_000);
      await a.reserve("C1", NOW);
      expect(await b.reserve("C1", NOW)).toBe(NOW);
    } finally {
      await dropPrefix(other);
    }
  });
});
