import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { SEED } from "../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { follow } from "../reconcile/support.js";
import { faultRow, spooledAcks, type FlowTarget } from "./flow.js";

const OTHER_CHANNEL = "C0CHAOSTWO";

describe("chaos: Redis clients paused (CLIENT PAUSE) longer than the acknowledgement's budget", () => {
  let redis: OwnRedis;
  let admin: Redis;
  let h: Harness;
  const targets: FlowTarget[] = [
    { groupId: SEED.groups.support, channel: TEST_CHANNEL },
    { groupId: SEED.groups.contributors, channel: OTHER_CHANNEL },
  ];
  beforeAll(async () => {
    redis = await startOwnRedis();
    admin = new Redis(redis.url);
    h = await startHarness({
      redisUrl: redis.url,
      env: { RECONCILE_INTERVAL: "3" },
      emulator: { webhookTimeoutMs: 10_000 },
      tuning: { healthWatchMs: 500 },
    });
    for (const t of targets) await follow(h, t.groupId, t.channel);
  });
  afterAll(async () => {
    admin?.disconnect();
    await h?.stop();
    await redis?.close();
  });

  it("acknowledges every delivery within 10 s (spooled), and posts everything once after", async () => {
    const r = await faultRow(h, targets, "clients paused 12 s", async () => {
      await admin.call("CLIENT", "PAUSE", "12000", "ALL");
      await new Promise((res) => setTimeout(res, 12_000));
    });
    expect(r.errors).toEqual([]);
    expect(r.verdict.refusedDeliveries).toEqual([]);
    expect(r.figures.ok).toBe(r.figures.deliveries);
    expect(r.figures.slowestAckMs).toBeLessThan(10_000);
    expect(r.verdict.lost).toEqual([]);
    expect(r.verdict.duplicated).toEqual([]);
    expect(r.figures.notReadyBecause).toEqual(["Redis did not answer within 900 ms"]);
    expect(r.figures.ops).toEqual([]);
    expect(await spooledAcks(h)).toBeGreaterThan(0);
  }, 120_000);
});
