import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import {
  DEAD_LETTER_LIMIT,
  dayOf,
  DeliveryHealthStore,
  type DeadLetter,
} from "../../src/store/delivery-health.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const GROUP = "65f1c0a2e4b0a1d2c3b4a017";
const letter = (n: number, o: Partial<DeadLetter> = {}): DeadLetter => ({
  at: new Date(Date.UTC(2025, 2, 5, 18, 0, 0, n)).toISOString(),
  reason: "invalid_json",
  webhookType: undefined,
  error: "Unexpected end of JSON input",
  body: `{"n":${n}`,
  deliveryId: `d${n}`,
  ...o,
});

describe("dayOf", () => {
  it("is the UTC day of an instant, whatever offset it was written with", () => {
    expect(dayOf("2025-03-05T23:59:59.999Z")).toBe("2025-03-05");
    expect(dayOf("2025-03-06T00:30:00.000+01:00")).toBe("2025-03-05");
    expect(dayOf(new Date(Date.UTC(2024, 1, 29, 12)))).toBe("2024-02-29");
  });
});

describe("DeliveryHealthStore", () => {
  let redis: Redis;
  let prefix: string;
  let keys: StateKeys;
  let health: DeliveryHealthStore;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("health");
    keys = stateKeys(prefix);
    health = new DeliveryHealthStore(redis, keys);
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });

  it("an empty store answers empty records and zero counts", async () => {
    expect(await health.lastDeliveries()).toEqual({});
    expect(await health.deliveryCounts()).toEqual({});
    expect(await health.deadLetters()).toEqual([]);
    expect(await health.deadLetterCounts()).toEqual({ total: 0, kept: 0, byReason: {} });
  });

  it("dead letters come back newest first, whole, and counted by reason", async () => {
    await health.addDeadLetter(letter(1));
    await health.addDeadLetter(letter(2, { reason: "unknown_type", webhookType: "member-crud", error: "x" }));
    await health.addDeadLetter(letter(3, { reason: "invalid_payload", webhookType: "chatthread-crud" }));
    const all = await health.deadLetters();
    expect(all.map((l) => l.deliveryId)).toEqual(["d3", "d2", "d1"]);
    expect(all[1]).toEqual(letter(2, { reason: "unknown_type", webhookType: "member-crud", error: "x" }));
    expect(await health.deadLetters(2)).toHaveLength(2);
    expect(await health.deadLetterCounts()).toEqual({
      total: 3,
      kept: 3,
      byReason: { invalid_json: 1, unknown_type: 1, invalid_payload: 1 },
    });
  });

  it(`keeps at most DEAD_LETTER_LIMIT (${DEAD_LETTER_LIMIT}) letters, dropping the oldest, while counts keep growing`, async () => {
    const n = DEAD_LETTER_LIMIT + 25;
    await Promise.all(Array.from({ length: n }, (_, i) => health.addDeadLetter(letter(i))));
    expect(await redis.llen(keys.deadLetters)).toBe(DEAD_LETTER_LIMIT);
    const counts = await health.deadLetterCounts();
    expect(counts).toEqual({ total: n, kept: DEAD_LETTER_LIMIT, byReason: { invalid_json: n } });
    const newest = await health.deadLetters(DEAD_LETTER_LIMIT + 10);
    expect(newest).toHaveLength(DEAD_LETTER_LIMIT);
    expect(newest[0]?.deliveryId).toBe(`d${n - 1}`);
    expect(newest.at(-1)?.deliveryId).toBe(`d${n - DEAD_LETTER_LIMIT}`);
  });

  it("cuts a dead letter's body to 16 KiB", async () => {
    await health.addDeadLetter(letter(1, { body: "x".repeat(100_000) }));
    const [kept] = await health.deadLetters(1);
    expect(kept?.body).toHaveLength(16_384);
  });

  it("activity counts a repeated message id once per day", async () => {
    await health.recordMessage(GROUP, "m1", "2025-03-05T10:00:00.000Z");
    await health.recordMessage(GROUP, "m1", "2025-03-05T11:00:00.000Z"); // a repeat delivery
    await health.recordMessage(GROUP, "m2", "2025-03-05T12:00:00.000Z");
    await health.recordMessage(GROUP, "m3", "2025-03-05T23:59:59.999Z");
    await health.recordMessage(GROUP, "m4", "2025-03-06T00:00:00.000Z");
    expect(await health.activity(GROUP, ["2025-03-04", "2025-03-05", "2025-03-06"])).toEqual({
      "2025-03-04": 0,
      "2025-03-05": 3,
      "2025-03-06": 1,
    });
  });

  it("activity is per group", async () => {
    await health.recordMessage(GROUP, "m1", "2025-03-05T10:00:00.000Z");
    await health.recordMessage("other-group", "m1", "2025-03-05T10:00:00.000Z");
    await health.recordMessage("other-group", "m2", "2025-03-05T10:00:00.000Z");
    expect(await health.activity(GROUP, ["2025-03-05"])).toEqual({ "2025-03-05": 1 });
    expect(await health.activity("other-group", ["2025-03-05"])).toEqual({ "2025-03-05": 2 });
    expect(await health.activity(GROUP, [])).toEqual({});
  });

  it("activity of many distinct messages is close to exact (HyperLogLog)", async () => {
    const ids = Array.from({ length: 500 }, (_, i) => `msg-${i}`);
    await Promise.all(
      [...ids, ...ids].map((id) => health.recordMessage(GROUP, id, "2025-03-05T10:00:00.000Z")),
    );
    const n = (await health.activity(GROUP, ["2025-03-05"]))["2025-03-05"] ?? 0;
    // Redis' HLL is exact in its sparse form at this size; allow its 0.81% standard error anyway.
    expect(Math.abs(n - 500)).toBeLessThanOrEqual(10);
  });

  it("activity keys expire after about 120 days", async () => {
    await health.recordMessage(GROUP, "m1", "2025-03-05T10:00:00.000Z");
    const ttl = await redis.ttl(keys.activity(GROUP, "2025-03-05"));
    expect(ttl).toBeGreaterThan(119 * 86_400);
    expect(ttl).toBeLessThanOrEqual(120 * 86_400);
  });

  it("lastDeliveries and deliveryCounts read what the receiver wrote, numbers as numbers", async () => {
    await redis.hset(keys.lastDelivery, "chatthread-crud", "2025-03-05T18:02:12.000Z");
    await redis.hincrby(keys.deliveryCounts, "chatthread-crud", 41);
    await redis.hincrby(keys.deliveryCounts, "invalid", 2);
    expect(await health.lastDeliveries()).toEqual({ "chatthread-crud": "2025-03-05T18:02:12.000Z" });
    expect(await health.deliveryCounts()).toEqual({ "chatthread-crud": 41, invalid: 2 });
  });
});
