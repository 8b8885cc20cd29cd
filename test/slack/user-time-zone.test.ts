import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { userTimeZones } from "../../src/slack/user-time-zone.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { slackApiFor, useSlackStandIn } from "../helpers/slack.js";

describe("userTimeZones (users.info over the stand-in Slack, cached in real Redis)", () => {
  const standIn = useSlackStandIn();
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("tz");
  });
  afterEach(async () => dropPrefix(prefix));

  const zones = (fallback = "Europe/Paris") => {
    const keys = stateKeys(prefix);
    return userTimeZones({
      slack: slackApiFor(standIn.current).api,
      redis,
      key: keys.userTimeZone,
      fallback,
      ttlSeconds: 60,
      logger: silentLogger,
    });
  };
  const infoCalls = () => standIn.current.calls.filter((c) => c.method === "users.info").length;

  it("reads the person's zone from Slack once, then from Redis for a short while", async () => {
    standIn.current.timeZones.set("U1", "America/Los_Angeles");
    const tz = zones();
    expect(await tz.of("U1")).toBe("America/Los_Angeles");
    expect(await tz.of("U1")).toBe("America/Los_Angeles");
    expect(infoCalls()).toBe(1);
    expect(await redis.ttl(stateKeys(prefix).userTimeZone("U1"))).toBeGreaterThan(50);
  });

  it("falls back to the app's default when Slack cannot say, and asks again next time", async () => {
    standIn.current.fail.error("users.info", "missing_scope", { count: 1 });
    const tz = zones();
    expect(await tz.of("U2")).toBe("Europe/Paris");
    expect(await redis.exists(stateKeys(prefix).userTimeZone("U2"))).toBe(0);
    expect(await tz.of("U2")).toBe("UTC");
    expect(infoCalls()).toBe(2);
  });

  it("refuses a zone it does not know", async () => {
    standIn.current.timeZones.set("U3", "Mars/Olympus_Mons");
    expect(await zones("Asia/Tokyo").of("U3")).toBe("Asia/Tokyo");
  });
});
