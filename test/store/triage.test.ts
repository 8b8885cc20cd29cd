import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { TriageStore } from "../../src/store/triage.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

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

  it("handled: once under concurrent presses, reopened once, who and when kept", async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => store.setHandled("C1", "t1", true, "U1", at(0))),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await store.get("C1", "t1")).handled).toEqual({ by: "U1", atMs: at(0).getTime() });
    expect(await store.setHandled("C1", "t1", false, "U2", at(1))).toBe(true);
    expect(await store.setHandled("C1", "t1", false, "U2", at(1))).toBe(false);
    expect((await store.get("C1", "t1")).handled).toBeUndefined();
  });

  it("assign: the same person twice is one change; reassigning moves the thread between Home lists", async () => {
    expect(await store.assign("C1", "t1", "U0CAROL", "U1", at(0))).toBe(true);
    expect(await store.assign("C1", "t1", "U0CAROL", "U1", at(1))).toBe(false);
    expect((await store.forHome("U0CAROL", 5)).assigned.map((r) => r.threadId)).toEqual(["t1"]);
    expect(await store.assign("C1", "t1", "U0DAN", "U1", at(2))).toBe(true);
    expect((await store.forHome("U0CAROL", 5)).assigned).toEqual([]);
    expect((await store.forHome("U0DAN", 5)).assigned).toEqual([
      { channelId: "C1", threadId: "t1", atMs: at(2).getTime() },
    ]);
  });

  it("follow toggles; followers are counted on the card", async () => {
    expect(await store.toggleFollow("C1", "t1", "U1")).toBe("followed");
    expect(await store.toggleFollow("C1", "t1", "U2")).toBe("followed");
    expect((await store.get("C1", "t1")).followers).toBe(2);
    expect(await store.toggleFollow("C1", "t1", "U1")).toBe("unfollowed");
    expect(await store.followersOf("C1", "t1")).toEqual(["U2"]);
  });

  it("firstPress is true once per window", async () => {
    expect(await store.firstPress("U1", "C1", "t1", "follow", 5_000)).toBe(true);
    expect(await store.firstPress("U1", "C1", "t1", "follow", 5_000)).toBe(false);
    expect(await store.firstPress("U2", "C1", "t1", "follow", 5_000)).toBe(true);
  });

  it("Home: open = posted and not handled, newest first; handled ones listed apart", async () => {
    await store.noteCard("C1", "t1", at(0));
    await store.noteCard("C1", "t2", at(1));
    await store.noteCard("C2", "t3", at(2));
    // Noting a card again (an edit) keeps its first time.
    await store.noteCard("C1", "t1", at(9));
    await store.setHandled("C1", "t2", true, "U1", at(3));
    const home = await store.forHome("U1", 5);
    expect(home.open.map((r) => `${r.channelId}/${r.threadId}`)).toEqual(["C2/t3", "C1/t1"]);
    expect(home.handled.map((r) => `${r.channelId}/${r.threadId}`)).toEqual(["C1/t2"]);
  });

  it("the weekly summary's read API: which and how many threads are handled in a channel", async () => {
    await store.setHandled("C1", "t1", true, "U1", at(0));
    await store.setHandled("C1", "t3", true, "U1", at(0));
    await store.setHandled("C2", "t2", true, "U1", at(0));
    expect(await store.countHandled("C1", ["t1", "t2", "t3", "t4"])).toBe(2);
    expect([...(await store.handledAmong("C1", ["t1", "t2"]))]).toEqual(["t1"]);
    expect(await store.countHandled("C1", [])).toBe(0);
  });
});
