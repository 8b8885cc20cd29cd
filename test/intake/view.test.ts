// What the reconciler counts as a delivery before the intake pump has recorded its receipt: the
// newest entry still in the intake or in the batch being moved.
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newestPendingMs } from "../../src/intake/view.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { formatIntakeEntry } from "../../src/intake/entry.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("newestPendingMs", () => {
  let redis: Redis;
  const prefix = uniquePrefix("pending");
  const keys = stateKeys(prefix);
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(async () => {
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it("is undefined with nothing pending, else the newest receipt time of the intake and the batch in flight", async () => {
    expect(await newestPendingMs(redis, keys)).toBeUndefined();
    await redis.rpush(keys.intakeMoving, formatIntakeEntry("2026-11-26T10:00:00.000Z", "{}"));
    expect(await newestPendingMs(redis, keys)).toBe(Date.parse("2026-11-26T10:00:00.000Z"));
    await redis.rpush(
      keys.intake,
      formatIntakeEntry("2026-11-26T10:00:05.000Z", `{"a":1}`, { workspaceId: "T0WORKSPACE", receipt: "r1" }),
      formatIntakeEntry("2026-11-26T10:00:07.000Z", "not json\nat all"),
    );
    expect(await newestPendingMs(redis, keys)).toBe(Date.parse("2026-11-26T10:00:07.000Z"));
    // An entry of a receiver from before (a job, its receipt recorded) counts by its job's time.
    await redis.del(keys.intake);
    await redis.rpush(
      keys.intake,
      JSON.stringify({
        job: {
          deliveryId: "d1",
          receivedAt: "2026-11-26T09:00:00.000Z",
          event: { webhookType: "chatthread-crud", payload: {} },
        },
      }),
    );
    expect(await newestPendingMs(redis, keys)).toBe(Date.parse("2026-11-26T10:00:00.000Z"));
    await redis.del(keys.intakeMoving);
    expect(await newestPendingMs(redis, keys)).toBe(Date.parse("2026-11-26T09:00:00.000Z"));
    // Something no receiver wrote is no delivery.
    await redis.del(keys.intake);
    await redis.rpush(keys.intake, "garbage");
    expect(await newestPendingMs(redis, keys)).toBeUndefined();
  });
});
