import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { createRedis } from "../../src/store/redis.js";
import { createReceiver } from "../../src/webhooks/create-receiver.js";
import { repeatCheck } from "../../src/webhooks/delivery-recorder.js";
import { Spool } from "../../src/webhooks/spool.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const THREAD = readFileSync(new URL("../fixtures/webhooks/chatthread-created.json", import.meta.url), "utf8");

// The receiver enqueues a repeat in the same round trip as its de-duplication marker, so a
// repeat whose first job is already gone becomes a job again: its first step must drop it.
describe("one round trip to acknowledge, repeats dropped by the job's first step", () => {
  let prefix: string;
  let redis: Redis;
  let spoolDir: string;
  let r: ReturnType<typeof createReceiver>;

  beforeEach(async () => {
    prefix = uniquePrefix("repeat");
    redis = createRedis(testRedisUrl(), "command", silentLogger);
    if (redis.status !== "ready") await new Promise((ok) => redis.once("ready", ok));
    spoolDir = mkdtempSync(join(tmpdir(), "repeat-spool-"));
    r = createReceiver({
      redis,
      prefix,
      spool: new Spool(spoolDir, silentLogger),
      logger: silentLogger,
      metrics: createMetrics(),
    });
  });
  afterEach(async () => {
    r.ingest.close();
    await r.queues.close();
    redis.disconnect();
    await dropPrefix(prefix);
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it("a repeat after its first job was removed is answered duplicate, and its job is a repeat", async () => {
    const isRepeat = repeatCheck(redis, r.keys);
    const first = await r.ingest.ingest(THREAD, new Date("2026-11-20T10:00:00.000Z"));
    const job = await r.queues.deliveries.getJob(first.deliveryId);
    expect(job?.data.receivedAt).toBe("2026-11-20T10:00:00.000Z");
    // The first job itself goes ahead, on its first attempt and on any retry.
    expect(await isRepeat(first.deliveryId, "2026-11-20T10:00:00.000Z")).toBe(false);

    await job?.remove(); // completed long ago and removed (removeOnComplete)
    const again = await r.ingest.ingest(THREAD, new Date("2026-11-21T09:00:00.000Z"));
    expect(again.outcome).toBe("duplicate");
    const second = await r.queues.deliveries.getJob(first.deliveryId);
    expect(second?.data.receivedAt).toBe("2026-11-21T09:00:00.000Z");
    expect(await isRepeat(first.deliveryId, "2026-11-21T09:00:00.000Z")).toBe(true);
  });

  it("a delivery never marked (marker expired after 7 days) is not a repeat", async () => {
    const isRepeat = repeatCheck(redis, r.keys);
    expect(await isRepeat("never-seen", "2026-11-20T10:00:00.000Z")).toBe(false);
  });
});
