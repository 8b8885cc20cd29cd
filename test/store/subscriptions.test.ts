import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { SubscriptionStore, type Subscription } from "../../src/store/subscriptions.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const sub = (channelId: string, groupId: string, o: Partial<Subscription> = {}): Subscription => ({
  channelId,
  groupId,
  groupName: `Group ${groupId}`,
  communityId: "65f1c0a2e4b0a1d2c3b4a001",
  filters: {},
  createdBy: "U0ALICE",
  createdAt: "2025-03-05T10:00:00.000Z",
  ...o,
});

describe("SubscriptionStore", () => {
  let redis: Redis;
  let prefix: string;
  let keys: StateKeys;
  let store: SubscriptionStore;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("subs");
    keys = stateKeys(prefix);
    store = new SubscriptionStore(redis, keys);
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });

  it("forGroup: reads asked together are one HVALS; one asked after a write sees it", async () => {
    await store.put(sub("C1", "g1"));
    const monitor = await redis.monitor();
    const hvals: string[][] = [];
    monitor.on("monitor", (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === "hvals" && args[1]?.startsWith(`${prefix}:`)) hvals.push(args);
    });
    try {
      const together = await Promise.all([store.forGroup("g1"), store.forGroup("g1"), store.forGroup("g1")]);
      expect(together.map((subs) => subs.map((s) => s.channelId))).toEqual([["C1"], ["C1"], ["C1"]]);
      await store.put(sub("C2", "g1"));
      expect((await store.forGroup("g1")).map((s) => s.channelId).sort()).toEqual(["C1", "C2"]);
      for (let i = 0; i < 50 && hvals.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(hvals).toEqual([
        ["hvals", keys.subsByGroup("g1")],
        ["hvals", keys.subsByGroup("g1")],
      ]);
    } finally {
      monitor.disconnect();
    }
  });

  it("put creates, a second put of the same pair updates in place", async () => {
    expect(await store.put(sub("C1", "G1"))).toEqual({ created: true });
    expect(await store.put(sub("C1", "G1", { filters: { sentiments: ["negative"] } }))).toEqual({
      created: false,
    });
    expect(await store.get("C1", "G1")).toMatchObject({ filters: { sentiments: ["negative"] } });
    expect(await store.forChannel("C1")).toHaveLength(1);
    expect(await store.forGroup("G1")).toHaveLength(1);
  });

  it("get answers undefined for a pair never subscribed", async () => {
    await store.put(sub("C1", "G1"));
    expect(await store.get("C1", "G2")).toBeUndefined();
    expect(await store.get("C2", "G1")).toBeUndefined();
  });

  it("indexes both ways: group -> channels and channel -> groups, oldest first", async () => {
    await store.put(sub("C1", "G1", { createdAt: "2025-03-05T12:00:00.000Z" }));
    await store.put(sub("C2", "G1", { createdAt: "2025-03-05T09:00:00.000Z" }));
    await store.put(sub("C1", "G2", { createdAt: "2025-03-05T08:00:00.000Z" }));
    expect((await store.forGroup("G1")).map((s) => s.channelId)).toEqual(["C2", "C1"]);
    expect((await store.forChannel("C1")).map((s) => s.groupId)).toEqual(["G2", "G1"]);
    expect(await store.forGroup("G3")).toEqual([]);
    expect(await store.groups()).toEqual(["G1", "G2"]);
    expect(await store.channels()).toEqual(["C1", "C2"]);
    expect((await store.all()).map((s) => `${s.channelId}/${s.groupId}`)).toEqual([
      "C1/G2",
      "C1/G1",
      "C2/G1",
    ]);
  });

  it("keeps every field through the round trip", async () => {
    const s = sub("C1", "G1", {
      groupName: "Lumen DB *Support* <!here>",
      filters: {
        sentiments: ["negative", "mixed"],
        questions: true,
        minMessages: 5,
        keywords: ["dark mode"],
      },
      createdBy: "U0BOB",
    });
    await store.put(s);
    expect(await store.get("C1", "G1")).toEqual(s);
  });

  it("remove deletes from both indexes and tidies the index sets only when empty", async () => {
    await store.put(sub("C1", "G1"));
    await store.put(sub("C2", "G1"));
    expect(await store.remove("C1", "G1")).toBe(true);
    expect(await store.get("C1", "G1")).toBeUndefined();
    expect((await store.forGroup("G1")).map((s) => s.channelId)).toEqual(["C2"]);
    expect(await store.forChannel("C1")).toEqual([]);
    expect(await store.groups()).toEqual(["G1"]); // C2 still follows it
    expect(await store.channels()).toEqual(["C2"]);
    expect(await store.remove("C2", "G1")).toBe(true);
    expect(await store.groups()).toEqual([]);
    expect(await store.channels()).toEqual([]);
  });

  it("remove of a pair that does not exist answers false and changes nothing", async () => {
    await store.put(sub("C1", "G1"));
    expect(await store.remove("C1", "G9")).toBe(false);
    expect(await store.remove("C9", "G1")).toBe(false);
    expect(await store.all()).toHaveLength(1);
    expect(await store.groups()).toEqual(["G1"]);
    expect(await store.channels()).toEqual(["C1"]);
  });

  it("pauseChannel pauses each active subscription of that channel only, and reports those it changed", async () => {
    const at = new Date("2025-03-06T08:00:00.000Z");
    await store.put(sub("C1", "G1"));
    await store.put(sub("C1", "G2", { paused: { code: "not_in_channel", at: "2025-03-01T00:00:00.000Z" } }));
    await store.put(sub("C2", "G1"));
    const changed = await store.pauseChannel("C1", "is_archived", at);
    expect(changed.map((s) => s.groupId)).toEqual(["G1"]);
    // Visible through both indexes.
    expect((await store.get("C1", "G1"))?.paused).toEqual({
      code: "is_archived",
      at: "2025-03-06T08:00:00.000Z",
    });
    expect((await store.forGroup("G1")).find((s) => s.channelId === "C1")?.paused?.code).toBe("is_archived");
    // The one already paused keeps its first reason; the other channel is untouched.
    expect((await store.get("C1", "G2"))?.paused?.code).toBe("not_in_channel");
    expect((await store.get("C2", "G1"))?.paused).toBeUndefined();
    expect(await store.pauseChannel("C1", "is_archived", at)).toEqual([]);
  });

  it("resume clears a pause once; an active or unknown subscription answers false", async () => {
    await store.put(sub("C1", "G1"));
    await store.pauseChannel("C1", "channel_not_found", new Date("2025-03-06T08:00:00.000Z"));
    expect(await store.resume("C1", "G1")).toBe(true);
    expect((await store.get("C1", "G1"))?.paused).toBeUndefined();
    expect((await store.forGroup("G1"))[0]?.paused).toBeUndefined();
    expect(await store.resume("C1", "G1")).toBe(false);
    expect(await store.resume("C1", "G404")).toBe(false);
  });

  it("a corrupt entry is skipped instead of breaking the listing", async () => {
    await store.put(sub("C1", "G1"));
    await redis.hset(keys.subsByChannel("C1"), "G2", "{not json");
    expect((await store.forChannel("C1")).map((s) => s.groupId)).toEqual(["G1"]);
    expect(await store.get("C1", "G2")).toBeUndefined();
  });

  it("keeps its keys under the prefix's state namespace", async () => {
    await store.put(sub("C1", "G1"));
    const found = await redis.keys(`${prefix}:*`);
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((k) => k.startsWith(`${prefix}:state:sub:`))).toBe(true);
  });
});
