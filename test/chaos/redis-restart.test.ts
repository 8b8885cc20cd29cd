import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { follow, opsMessages } from "../reconcile/support.js";
import { DigestFlow, settleFlow } from "./flow.js";

const OTHER_CHANNEL = "C0CHAOSTWO";

describe("chaos: Redis killed and restarted while digests flow", () => {
  let redis: OwnRedis;
  let h: Harness;
  beforeAll(async () => {
    redis = await startOwnRedis();
    // The reconciler runs too: it must not add posts of its own under chaos.
    h = await startHarness({ redisUrl: redis.url, env: { RECONCILE_INTERVAL: "3" } });
    await follow(h, SEED.groups.support, TEST_CHANNEL);
    await follow(h, SEED.groups.contributors, OTHER_CHANNEL);
  });
  afterAll(async () => {
    await h?.stop();
    await redis?.close();
  });

  it("answers every delivery 2xx, loses no digest and posts none twice", async () => {
    const flow = new DigestFlow(h, [
      { groupId: SEED.groups.support, channel: TEST_CHANNEL },
      { groupId: SEED.groups.contributors, channel: OTHER_CHANNEL },
    ]);
    flow.start(8);
    await new Promise((r) => setTimeout(r, 3_000));
    await redis.stop();
    await new Promise((r) => setTimeout(r, 6_000));
    await redis.start();
    await new Promise((r) => setTimeout(r, 3_000));
    await flow.stop();
    expect(flow.errors).toEqual([]);

    const v = await settleFlow(h, flow, { timeoutMs: 60_000 });
    expect(v.threads).toBeGreaterThan(40);
    expect(v.refusedDeliveries).toEqual([]);
    expect(v.webhookDisabled).toBe(false);
    expect(v.lost).toEqual([]);
    expect(v.duplicated).toEqual([]);
    // Deliveries kept flowing (from the spool): no silence alert.
    expect(opsMessages(h).filter((m) => m.text.includes("look stopped"))).toEqual([]);
  }, 120_000);
});
