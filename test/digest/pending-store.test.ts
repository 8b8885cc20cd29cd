import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PendingDigestStore } from "../../src/digest/pending-store.js";
import { entryVersion, mergePending, type PendingEntry } from "../../src/domain/digest-batch.js";
import type { ThreadDigest } from "../../src/domain/thread-digest.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const digest = (threadId: string, title: string, sentiment?: string): ThreadDigest => ({
  threadId,
  groupId: "g1",
  groupName: "Support",
  communityId: "c1",
  title,
  summary: undefined,
  sentiment,
  keywords: [],
  messageCount: 1,
  participantCount: 1,
  isQuestionLed: undefined,
  questionResponseStatus: undefined,
  firstMessageDate: undefined,
  lastMessageDate: undefined,
  enrichedAt: "2026-11-20T10:00:00.000Z",
  action: "created",
});
const entry = (
  threadId: string,
  at: number,
  title: string,
  isNew = true,
  sentiment = "neutral",
): PendingEntry => ({
  digest: digest(threadId, title, sentiment),
  version: entryVersion(at, true),
  isNew,
  firstSeenMs: at,
});

describe("PendingDigestStore (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  let store: PendingDigestStore;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  beforeEach(() => {
    prefix = uniquePrefix("pending");
    store = new PendingDigestStore(redis, stateKeys(prefix));
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });
  afterAll(() => redis.disconnect());

  it("applies the same rule as mergePending: newer wins, first sight and newness kept, keywords stay an array", async () => {
    const steps = [
      entry("t1", 1_000, "v1"),
      entry("t1", 3_000, "v3", false),
      entry("t1", 2_000, "v2", false),
    ];
    let expected: PendingEntry | undefined;
    const added: boolean[] = [];
    for (const s of steps) {
      added.push(await store.add("C1", s));
      expected = mergePending(expected, s);
    }
    expect(added).toEqual([true, true, false]);
    const [stored] = await store.list("C1");
    expect(stored).toEqual(expected);
    expect(stored?.digest.keywords).toEqual([]);
  });

  it("removes only what a batch showed, and only while unchanged", async () => {
    const a = entry("a", 1_000, "a1");
    const b = entry("b", 1_000, "b1");
    await store.add("C1", a);
    await store.add("C1", b);
    const batch = await store.list("C1");
    await store.add("C1", entry("b", 2_000, "b2", false)); // re-enriched after the batch was taken
    await store.add("C1", entry("c", 2_000, "c1"));
    expect(await store.removeShown("C1", batch)).toBe(1);
    const left = (await store.list("C1")).map((e) => e.digest.title).sort();
    expect(left).toEqual(["b2", "c1"]);
    expect(await store.count("C2")).toBe(0);

    // What the batch showed is remembered: the same state again (a reconciler pass, a repeated
    // delivery) is not pending; a newer one is, as changed.
    expect(await store.add("C1", entry("a", 1_000, "a1"))).toBe(false);
    expect(await store.add("C1", entry("a", 500, "a0"))).toBe(false);
    expect(await store.count("C1")).toBe(2);
    expect(await store.add("C1", entry("a", 3_000, "a3", true))).toBe(true);
    const a3 = (await store.list("C1")).find((e) => e.digest.threadId === "a");
    expect(a3).toMatchObject({ isNew: false, digest: { title: "a3" } });
    expect(a3).toEqual(
      mergePending(undefined, entry("a", 3_000, "a3", true), entry("a", 1_000, "a1").version),
    );
  });

  it("forgets shown states after two weeks", async () => {
    const a = entry("a", 1_000, "a1");
    await store.add("C1", a);
    await store.removeShown("C1", [a], 1_000);
    expect(await store.add("C1", a)).toBe(false);
    // A later flush prunes records older than 14 days.
    const b = entry("b", 2_000, "b1");
    await store.add("C1", b);
    await store.removeShown("C1", [b], 1_000 + 15 * 86_400_000);
    expect(await store.add("C1", a)).toBe(true);
  });
});
