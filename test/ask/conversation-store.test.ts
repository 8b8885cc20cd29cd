import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ConversationStore } from "../../src/ask/conversation-store.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys, workspaceStateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

describe("ConversationStore (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("ask");
  });
  afterEach(async () => dropPrefix(prefix));

  it("keeps a thread's context and memory in one hash of the workspace's keys, for a week", async () => {
    const keys = stateKeys(prefix);
    const store = new ConversationStore(redis, keys);
    await store.saveContext("D1", "1.1", { channelId: "C1", teamId: "T1", enterpriseId: undefined });
    await store.remember("D1", "1.1", { groups: [{ id: "g1", name: "Support" }], rangeWords: "last month" });
    expect(await store.context("D1", "1.1")).toEqual({ channelId: "C1", teamId: "T1" });
    expect(await store.memory("D1", "1.1")).toEqual({
      groups: [{ id: "g1", name: "Support" }],
      rangeWords: "last month",
    });
    expect((await redis.hkeys(keys.askThread("D1", "1.1"))).sort()).toEqual(["context", "memory"]);
    expect(await redis.ttl(keys.askThread("D1", "1.1"))).toBeGreaterThan(7 * 24 * 3600 - 5);
    expect(await store.memory("D1", "2.2")).toBeUndefined();
  });

  it("titles a thread once, and takes a message once however often Slack delivers it", async () => {
    const store = new ConversationStore(redis, stateKeys(prefix));
    expect(await Promise.all([store.firstQuestion("D1", "1.1"), store.firstQuestion("D1", "1.1")])).toEqual(
      expect.arrayContaining([true, false]),
    );
    expect(await store.firstQuestion("D1", "1.1")).toBe(false);
    const takes = await Promise.all([1, 2, 3].map(() => store.take("D1", "1.5")));
    expect(takes.filter(Boolean)).toHaveLength(1);
  });

  it("one workspace never reads another's conversation (rule 12)", async () => {
    const a = new ConversationStore(redis, workspaceStateKeys(prefix, "TA"));
    const b = new ConversationStore(redis, workspaceStateKeys(prefix, "TB"));
    await a.remember("D1", "1.1", { rangeWords: "today" });
    expect(await b.memory("D1", "1.1")).toBeUndefined();
    expect(await b.take("D1", "1.1")).toBe(true);
    expect(await a.take("D1", "1.1")).toBe(true);
  });

  it("reads a damaged value as nothing rather than failing", async () => {
    const keys = stateKeys(prefix);
    await redis.hset(
      keys.askThread("D1", "1.1"),
      "memory",
      "{not json",
      "context",
      JSON.stringify({ channelId: 5 }),
    );
    const store = new ConversationStore(redis, keys);
    expect(await store.memory("D1", "1.1")).toBeUndefined();
    expect(await store.context("D1", "1.1")).toBeUndefined();
  });
});
