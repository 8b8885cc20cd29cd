import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { groupFollowed } from "../../src/intake/followed-groups.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys, workspaceStateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { WatchStore } from "../../src/store/watches.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/* The intake pump's question, on real Redis: does anyone want this group's deliveries? */
describe("groupFollowed (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("followed");
  });
  afterEach(async () => dropPrefix(prefix));

  const follow = (keys: ReturnType<typeof stateKeys>, groupId: string) =>
    new SubscriptionStore(redis, keys).put({
      channelId: "C1",
      groupId,
      groupName: "Group",
      communityId: "c1",
      filters: {},
      createdBy: "U1",
      createdAt: new Date().toISOString(),
    });

  it("one workspace: a group a channel follows, or one a watch covers; not one nobody wants", async () => {
    const keys = stateKeys(prefix);
    const wanted = groupFollowed(redis, prefix, { multiWorkspace: false });
    await follow(keys, "g-followed");
    expect(await wanted(undefined, "g-followed")).toBe(true);
    expect(await wanted(undefined, "g-watched")).toBe(false);
    // A watch of one group, and a watch of every group.
    const watches = new WatchStore(redis, keys);
    await watches.add(
      "U0MAYA",
      { words: ["refund"], group: { id: "g-watched", name: "W" }, filters: {} },
      new Date(),
    );
    expect(await wanted(undefined, "g-watched")).toBe(true);
    expect(await wanted(undefined, "g-other")).toBe(false);
    await watches.add("U0SAM", { words: ["outage"], filters: {} }, new Date());
    expect(await wanted(undefined, "g-other")).toBe(true);
    await watches.removeAll("U0SAM");
    expect(await wanted(undefined, "g-other")).toBe(false);
  });

  it("many workspaces: each asks its own subscriptions and watches", async () => {
    const wanted = groupFollowed(redis, prefix, { multiWorkspace: true });
    await new WatchStore(redis, workspaceStateKeys(prefix, "T0ALPHA")).add(
      "U0MAYA",
      { words: ["refund"], filters: {} },
      new Date(),
    );
    expect(await wanted("T0ALPHA", "g1")).toBe(true);
    expect(await wanted("T0BRAVO", "g1")).toBe(false);
    // No workspace named: kept (its worker runs it for every workspace).
    expect(await wanted(undefined, "g1")).toBe(true);
  });
});
