import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunGuard } from "../../src/weekly/run-guard.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("RunGuard (real Redis)", () => {
  let redis: Redis;
  const prefix = uniquePrefix("weekly-guard");
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it("one job owns a run; a retry of the same job takes it again; a finished run stays finished", async () => {
    const key = `${prefix}:run:C1:2026-03-09`;
    const a = new RunGuard(redis, key, "job-a");
    const b = new RunGuard(redis, key, "job-b");
    expect(await a.claim()).toBe("claimed");
    expect(await b.claim()).toBe("busy");
    expect(await a.claim()).toBe("claimed"); // BullMQ retried job-a
    expect(await a.markPart("group:g1", "1700000000.000100")).toBe(true);
    expect(await b.markPart("group:g2", "x")).toBe(false); // not the owner
    expect(await a.parts()).toEqual(new Map([["group:g1", "1700000000.000100"]]));
    await a.finish();
    expect(await a.claim()).toBe("done");
    expect(await b.claim()).toBe("done");
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(7 * 86_400_000);
    expect(ttl).toBeLessThanOrEqual(8 * 86_400_000);
  });

  it("after its owner's lease ends, another job finishes what is left, keeping the posted parts", async () => {
    const key = `${prefix}:run:C2:2026-03-09`;
    let t = 1_000_000;
    const now = () => t;
    const a = new RunGuard(redis, key, "job-a", { leaseMs: 60_000, now });
    const b = new RunGuard(redis, key, "job-b", { leaseMs: 60_000, now });
    expect(await a.claim()).toBe("claimed");
    await a.markPart("group:g1", "ts-1");
    t += 59_999;
    expect(await b.claim()).toBe("busy");
    t += 2;
    expect(await b.claim()).toBe("claimed");
    expect(await b.parts()).toEqual(new Map([["group:g1", "ts-1"]]));
    expect(await a.markPart("group:g2", "ts-2")).toBe(false); // job-a lost the run
    expect(await a.claim()).toBe("busy");
  });

  it("different periods and channels are different runs", async () => {
    const a = new RunGuard(redis, `${prefix}:run:C3:2026-03-09`, "job-a");
    const b = new RunGuard(redis, `${prefix}:run:C3:2026-03-16`, "job-b");
    const c = new RunGuard(redis, `${prefix}:run:C4:2026-03-09`, "job-c");
    expect([await a.claim(), await b.claim(), await c.claim()]).toEqual(["claimed", "claimed", "claimed"]);
  });
});
