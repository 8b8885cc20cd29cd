import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys, workspaceStateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { ReminderStore } from "../../src/store/reminders.js";
import { WatchDmRefs } from "../../src/store/watch-dms.js";
import { WatchPendingStore } from "../../src/store/watch-pending.js";
import { WatchStore } from "../../src/store/watches.js";
import type { Reminder } from "../../src/domain/reminder.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { digest } from "../helpers/personal-builders.js";

describe("personal stores (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("personal");
  });
  afterEach(async () => dropPrefix(prefix));
  const at = new Date("2026-03-13T12:00:00.000Z");

  it("watches: per person, numbered, the same one once, at most the limit (under concurrent adds)", async () => {
    const store = new WatchStore(redis, stateKeys(prefix), 3);
    const first = await store.add("U0MAYA", { words: ["refund"], filters: {} }, at);
    expect(first).toMatchObject({
      ok: true,
      count: 1,
      watch: { id: "1", userId: "U0MAYA", words: ["refund"] },
    });
    expect(await store.add("U0MAYA", { words: ["Refund"], filters: {} }, at)).toMatchObject({
      ok: false,
      reason: "duplicate",
      position: 1,
    });
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((w) => store.add("U0MAYA", { words: [w], filters: {} }, at)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(2);
    expect(results.filter((r) => !r.ok && r.reason === "limit")).toHaveLength(2);
    expect((await store.list("U0MAYA")).map((w) => w.id)).toEqual(["1", "2", "3"]);
    // Another person's watches are theirs alone.
    await store.add(
      "U0SAM",
      { words: ["arm64"], group: { id: "g1", name: "Support" }, filters: {}, daily: 540 },
      at,
    );
    expect(await store.list("U0SAM")).toEqual([
      {
        id: "1",
        userId: "U0SAM",
        words: ["arm64"],
        group: { id: "g1", name: "Support" },
        filters: {},
        daily: 540,
        createdAt: at.toISOString(),
      },
    ]);
    expect((await store.all()).map((w) => `${w.userId}:${w.id}`)).toEqual([
      "U0MAYA:1",
      "U0MAYA:2",
      "U0MAYA:3",
      "U0SAM:1",
    ]);
    // The intake keeps deliveries of groups a watch covers: one named, or all when none is.
    expect(await store.covers("g1")).toBe(true);
    expect(await store.covers("g2")).toBe(true);
    expect(await store.remove("U0SAM", "1")).toBe(true);
    expect(await store.remove("U0SAM", "1")).toBe(false);
    expect(
      await store.replace("U0MAYA", "2", { words: ["chargeback"], filters: { sentiments: ["negative"] } }),
    ).toBe(true);
    expect((await store.get("U0MAYA", "2"))?.filters).toEqual({ sentiments: ["negative"] });
    expect(await store.removeAll("U0MAYA")).toBe(3);
    expect(await store.all()).toEqual([]);
    expect(await store.covers("g1")).toBe(false);
    await store.add("U0SAM", { words: ["arm64"], group: { id: "g1", name: "Support" }, filters: {} }, at);
    expect(await store.covers("g1")).toBe(true);
    expect(await store.covers("g2")).toBe(false);
    await store.removeAll("U0SAM");
    // Numbers are not given twice: a new watch after removals gets the next one.
    expect(await store.add("U0MAYA", { words: ["x"], filters: {} }, at)).toMatchObject({
      watch: { id: "4" },
    });
  });

  it("watches of two workspaces never meet (rule 12)", async () => {
    const a = new WatchStore(redis, workspaceStateKeys(prefix, "T0AAA"));
    const b = new WatchStore(redis, workspaceStateKeys(prefix, "T0BBB"));
    await a.add("U0MAYA", { words: ["refund"], filters: {} }, at);
    expect(await b.all()).toEqual([]);
    expect(await b.list("U0MAYA")).toEqual([]);
  });

  it("watch DMs: claimed once under concurrent changes, then recorded; a failed send gives the claim back", async () => {
    const refs = new WatchDmRefs(redis, stateKeys(prefix));
    const claims = await Promise.all(Array.from({ length: 5 }, () => refs.claim("U0MAYA", "thr_1", at)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await refs.forThread("thr_1")).toEqual(
      new Map([["U0MAYA", { kind: "claimed", atMs: at.getTime() }]]),
    );
    await refs.release("U0MAYA", "thr_1");
    expect(await refs.claim("U0MAYA", "thr_1", at)).toBe(true);
    const d = digest({ threadId: "thr_1" });
    await refs.set("U0MAYA", "thr_1", {
      kind: "card",
      channel: "D0MAYA",
      ts: "1.000100",
      watchId: "1",
      digest: d,
      sentAtMs: 5,
    });
    expect(await refs.claim("U0MAYA", "thr_1", new Date(at.getTime() + 3_600_000))).toBe(false);
    expect(await refs.release("U0MAYA", "thr_1")).toBeUndefined();
    expect(await refs.get("U0MAYA", "thr_1")).toMatchObject({
      kind: "card",
      ts: "1.000100",
      digest: { title: d.title },
    });
    // A claim whose send died is taken over after ten minutes.
    await refs.claim("U0SAM", "thr_1", at);
    expect(await refs.claim("U0SAM", "thr_1", new Date(at.getTime() + 11 * 60_000))).toBe(true);
  });

  it("pending matches: the newest state of a thread, the earliest due time, taken once when due", async () => {
    const pending = new WatchPendingStore(redis, stateKeys(prefix));
    const due = Date.parse("2026-03-14T08:00:00Z");
    const older = digest({ enrichedAt: "2026-03-13T12:05:00.000Z", keywords: [] });
    const newer = digest({ enrichedAt: "2026-03-13T13:05:00.000Z", messageCount: 9, keywords: [] });
    expect(
      await pending.add("U0MAYA", {
        digest: newer,
        watchId: "1",
        reason: "daily",
        dueAtMs: due + 1000,
        firstSeenMs: 2,
      }),
    ).toBe(true);
    expect(
      await pending.add("U0MAYA", {
        digest: older,
        watchId: "1",
        reason: "daily",
        dueAtMs: due,
        firstSeenMs: 1,
      }),
    ).toBe(false);
    await pending.add("U0MAYA", {
      digest: digest({ threadId: "thr_late" }),
      watchId: "1",
      reason: "daily",
      dueAtMs: due + 86_400_000,
      firstSeenMs: 3,
    });
    const [kept] = await pending.peek("U0MAYA");
    expect(kept).toMatchObject({ dueAtMs: due, firstSeenMs: 2, digest: { messageCount: 9, keywords: [] } });
    const taken = await Promise.all([pending.takeDue("U0MAYA", due), pending.takeDue("U0MAYA", due)]);
    expect(taken.flat().map((m) => m.digest.threadId)).toEqual(["thr_refund"]);
    expect((await pending.peek("U0MAYA")).map((m) => m.digest.threadId)).toEqual(["thr_late"]);
  });

  it("reminders: recorded once per card and minute, listed soonest first, cancelled, limited", async () => {
    const store = new ReminderStore(redis, stateKeys(prefix), 2);
    const r = (dueAtMs: number, ts = "1.000100"): Reminder => ({
      id: `${dueAtMs}.C1.${ts}`,
      userId: "U0MAYA",
      channelId: "C1",
      cardTs: ts,
      threadId: "thr_1",
      groupId: "g1",
      title: "Refund failed",
      dueAtMs,
      createdAtMs: at.getTime(),
    });
    const later = r(at.getTime() + 4 * 3_600_000);
    const soon = r(at.getTime() + 3_600_000);
    expect(await store.add(later)).toBe("added");
    expect(await store.add(later)).toBe("exists");
    expect(await store.add(soon)).toBe("added");
    expect(await store.add(r(at.getTime() + 86_400_000))).toBe("limit");
    expect((await store.list("U0MAYA")).map((x) => x.id)).toEqual([soon.id, later.id]);
    expect(await store.list("U0SAM")).toEqual([]);
    expect(await store.remove("U0MAYA", soon.id)).toBe(true);
    expect(await store.remove("U0MAYA", soon.id)).toBe(false);
    expect(await store.get("U0MAYA", later.id)).toEqual(later);
  });
});
