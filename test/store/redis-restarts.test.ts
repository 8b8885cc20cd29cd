import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { RECOVERY_MS, RedisRestarts } from "../../src/store/redis-restarts.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";

describe("RedisRestarts on a real Redis that loses its last writes", () => {
  let own: OwnRedis;
  let redis: Redis;
  let queue: Queue;
  let clock: number | undefined;
  let restarts: RedisRestarts;
  beforeAll(async () => {
    own = await startOwnRedis();
    redis = new Redis(own.url, { maxRetriesPerRequest: null });
    redis.on("error", () => undefined);
    queue = new Queue("{slack-out-0}", { connection: redis, prefix: "restarts" });
    queue.on("error", () => undefined); // the restart below drops its connection
    restarts = new RedisRestarts({ redis, queues: () => [queue], now: () => clock ?? Date.now() });
  });
  afterAll(async () => {
    await queue.close().catch(() => undefined);
    redis.disconnect();
    await own.close();
  });

  it("looks back from the newest write that survived, for enrichments older than the restart only, for a quarter of an hour", async () => {
    await queue.add("kept", {});
    await new Promise((r) => setTimeout(r, 50));
    const keptUntil = Date.now();
    const cut = own.powerCut(500);
    await new Promise((r) => setTimeout(r, 100));
    await queue.add("lost", {}); // in the last half second: gone with it
    await cut;
    await new Promise((r) => setTimeout(r, 1_500)); // down for a while, as a crashed machine is
    await own.start();
    while (redis.status !== "ready") await new Promise((r) => setTimeout(r, 50));
    expect(await queue.getJobCounts("waiting")).toEqual({ waiting: 1 });

    const enrichedBefore = keptUntil - 2_000;
    const since = await restarts.lookBackSince(enrichedBefore);
    // The newest surviving event is the kept job's add, shortly before the cut; 5 s of clock margin.
    expect(since).toBeGreaterThan(keptUntil - 5_000 - 300);
    expect(since).toBeLessThanOrEqual(keptUntil - 5_000);
    // Enriched after the restart: it could not have been posted before it.
    expect(await restarts.lookBackSince(Date.now() + 10_000)).toBeUndefined();
    // A quarter of an hour on, nothing is looked for any more.
    clock = Date.now() + RECOVERY_MS + 1_000;
    expect(await restarts.lookBackSince(enrichedBefore)).toBeUndefined();
  }, 30_000);
});
