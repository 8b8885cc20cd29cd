import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { TriageStore } from "../../src/store/triage.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/* Triage belongs to the thread within the workspace (issue 35): no channel in any call. */
describe("TriageStore (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  let store: TriageStore;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("triage");
    store = new TriageStore(redis, stateKeys(prefix));
  });
  afterEach(async () => dropPrefix(prefix));

  const at = (m: number) => new Date(Date.UTC(2025, 2, 6, 12, m));

  it("handled: once under concurrent presses, reopened once, who, when and where kept", async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        store.setHandled("t1", true, "U1", at(0), { channelId: i % 2 ? "C1" : "C2" }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.get("t1")).handled).toMatchObject({ by: "U1", atMs: at(0).getTime() });
    expect(["C1", "C2"]).toContain((await store.get("t1")).handled?.channelId);
    expect(await store.setHandled("t1", false, "U2", at(1))).toBe(true);
    expect(await store.setHandled("t1", false, "U2", at(1))).toBe(false);
    expect((await store.get("t1")).handled).toBeUndefined();
    // A press on a watch DM names no channel.
    expect(await store.setHandled("t1", true, "U3", at(2))).toBe(true);
    expect((await store.get("t1")).handled).toEqual({ by: "U3", atMs: at(2).getTime() });
  });

  it("assign: the same person twice is one change; reassigning moves the thread between Home lists", async () => {
    expect(await store.assign("t1", "U0CAROL", "U1", at(0), { channelId: "C1" })).toBe(true);
    expect(await store.assign("t1", "U0CAROL", "U1", at(1), { channelId: "C2" })).toBe(false);
    expect((await store.forHome("U0CAROL", 5)).assigned.map((r) => r.threadId)).toEqual(["t1"]);
    expect(await store.assign("t1", "U0DAN", "U1", at(2))).toBe(true);
    expect((await store.forHome("U0CAROL", 5)).assigned).toEqual([]);
    expect((await store.forHome("U0DAN", 5)).assigned).toEqual([{ threadId: "t1", atMs: at(2).getTime() }]);
    expect((await store.get("t1")).assignee).toEqual({ user: "U0DAN", by: "U1", atMs: at(2).getTime() });
  });

  it("follow toggles per thread; followers are counted on every card", async () => {
    expect(await store.toggleFollow("t1", "U1")).toBe("followed");
    expect(await store.toggleFollow("t1", "U2")).toBe("followed");
    expect((await store.get("t1")).followers).toBe(2);
    expect(await store.toggleFollow("t1", "U1")).toBe("unfollowed");
    expect(await store.followersOf("t1")).toEqual(["U2"]);
  });

  it("a re-enrichment's follower DMs are noted once for the thread", async () => {
    expect(await store.followersTold("t1", 1_000)).toBe(false);
    await store.noteFollowersTold("t1", 1_000);
    expect(await store.followersTold("t1", 1_000)).toBe(true);
    expect(await store.followersTold("t1", 2_000)).toBe(false);
  });

  it("firstPress is true once per window and thread, whichever card", async () => {
    expect(await store.firstPress("U1", "t1", "follow", 5_000)).toBe(true);
    expect(await store.firstPress("U1", "t1", "follow", 5_000)).toBe(false);
    expect(await store.firstPress("U2", "t1", "follow", 5_000)).toBe(true);
  });

  it("Home: open = posted and not handled, newest first, each thread once; handled ones listed apart", async () => {
    await store.noteCard("t1", at(0));
    await store.noteCard("t2", at(1));
    await store.noteCard("t3", at(2));
    // A second channel's card of the same thread keeps its first time: it is listed once.
    await store.noteCard("t1", at(9));
    await store.setHandled("t2", true, "U1", at(3), { channelId: "C1" });
    const home = await store.forHome("U1", 5);
    expect(home.open).toEqual([
      { threadId: "t3", atMs: at(2).getTime() },
      { threadId: "t1", atMs: at(0).getTime() },
    ]);
    expect(home.handled).toEqual([{ threadId: "t2", atMs: at(3).getTime() }]);
  });

  it("the weekly summary's read API: which and how many threads are handled, wherever marked", async () => {
    await store.setHandled("t1", true, "U1", at(0), { channelId: "C1" });
    await store.setHandled("t3", true, "U1", at(0), { channelId: "C2" });
    await store.setHandled("t2", true, "U1", at(0));
    expect(await store.countHandled(["t1", "t3", "t4"])).toBe(2);
    expect([...(await store.handledAmong(["t1", "t4"]))]).toEqual(["t1"]);
    expect(await store.countHandled([])).toBe(0);
  });
});
