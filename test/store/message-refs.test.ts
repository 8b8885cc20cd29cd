import fc from "fast-check";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import {
  digestVersion,
  indexShard,
  MessageRefStore,
  periodOf,
  type MessageRef,
} from "../../src/store/message-refs.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const T0 = Date.parse("2025-03-05T18:02:11.482Z");
const ref = (o: Partial<MessageRef> = {}): MessageRef => ({
  ts: "1741197731.000100",
  enrichedAtMs: T0,
  hasSentiment: false,
  groupId: "65f1c0a2e4b0a1d2c3b4a017",
  ...o,
});

describe("digestVersion", () => {
  it("orders by enrichment time first, then with-sentiment over without", () => {
    expect(digestVersion(T0, true)).toBeGreaterThan(digestVersion(T0, false));
    expect(digestVersion(T0 + 1, false)).toBeGreaterThan(digestVersion(T0, true));
  });

  it("is a strict order for any two renderings of real epoch times", () => {
    const time = fc.integer({ min: 0, max: Date.parse("2100-01-01T00:00:00Z") });
    fc.assert(
      fc.property(time, time, fc.boolean(), fc.boolean(), (a, b, sa, sb) => {
        const va = digestVersion(a, sa);
        const vb = digestVersion(b, sb);
        const expected = a !== b ? Math.sign(a - b) : Math.sign(Number(sa) - Number(sb));
        expect(Math.sign(va - vb)).toBe(expected);
        expect(Number.isSafeInteger(va)).toBe(true);
      }),
    );
  });
});

describe("MessageRefStore", () => {
  let redis: Redis;
  let prefix: string;
  let keys: StateKeys;
  let refs: MessageRefStore;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("refs");
    keys = stateKeys(prefix);
    refs = new MessageRefStore(redis, keys);
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });

  it("get answers undefined before anything was recorded", async () => {
    expect(await refs.get("C1", "T1")).toBeUndefined();
  });

  it("the first setIfNewer records the ref, readable with its types intact", async () => {
    expect(await refs.setIfNewer("C1", "T1", ref({ hasSentiment: true }))).toBe(true);
    expect(await refs.get("C1", "T1")).toEqual(ref({ hasSentiment: true }));
  });

  it("a newer enrichment wins", async () => {
    await refs.setIfNewer("C1", "T1", ref());
    expect(
      await refs.setIfNewer("C1", "T1", ref({ enrichedAtMs: T0 + 60_000, ts: "1741197791.000200" })),
    ).toBe(true);
    expect(await refs.get("C1", "T1")).toMatchObject({ enrichedAtMs: T0 + 60_000, ts: "1741197791.000200" });
  });

  it("an older enrichment that finishes late loses, even with a sentiment", async () => {
    await refs.setIfNewer("C1", "T1", ref({ enrichedAtMs: T0 + 60_000, ts: "NEW" }));
    expect(await refs.setIfNewer("C1", "T1", ref({ enrichedAtMs: T0, hasSentiment: true, ts: "OLD" }))).toBe(
      false,
    );
    expect(await refs.get("C1", "T1")).toMatchObject({
      enrichedAtMs: T0 + 60_000,
      ts: "NEW",
      hasSentiment: false,
    });
  });

  it("the same enrichment with sentiment beats it without; the reverse and an exact repeat lose", async () => {
    expect(await refs.setIfNewer("C1", "T1", ref({ hasSentiment: false, ts: "A" }))).toBe(true);
    expect(await refs.setIfNewer("C1", "T1", ref({ hasSentiment: true, ts: "B" }))).toBe(true);
    expect(await refs.setIfNewer("C1", "T1", ref({ hasSentiment: false, ts: "C" }))).toBe(false);
    expect(await refs.setIfNewer("C1", "T1", ref({ hasSentiment: true, ts: "D" }))).toBe(false);
    expect(await refs.get("C1", "T1")).toMatchObject({ ts: "B", hasSentiment: true });
  });

  it("concurrent writers in any order leave the newest rendering", async () => {
    const versions = Array.from({ length: 40 }, (_, i) => ({
      enrichedAtMs: T0 + (i >> 1) * 1_000,
      hasSentiment: i % 2 === 1,
    }));
    const shuffled =
      fc.sample(fc.shuffledSubarray(versions, { minLength: 40 }), { numRuns: 1, seed: 7 })[0] ?? [];
    const results = await Promise.all(
      shuffled.map((v) =>
        refs.setIfNewer("C1", "T1", ref({ ...v, ts: `${v.enrichedAtMs}-${v.hasSentiment}` })),
      ),
    );
    const newest = versions.at(-1);
    expect(await refs.get("C1", "T1")).toMatchObject({
      ...newest,
      ts: `${newest?.enrichedAtMs}-${newest?.hasSentiment}`,
    });
    // Each write succeeded only when newer than every earlier one: the running maxima.
    let max = -1;
    const expected = shuffled.map((v) => {
      const ver = digestVersion(v.enrichedAtMs, v.hasSentiment);
      if (ver > max) {
        max = ver;
        return true;
      }
      return false;
    });
    expect(results).toEqual(expected);
  });

  it("refs of one thread in two channels are independent", async () => {
    await refs.setIfNewer("C1", "T1", ref({ enrichedAtMs: T0 + 1_000, ts: "in-C1" }));
    expect(await refs.setIfNewer("C2", "T1", ref({ ts: "in-C2" }))).toBe(true);
    expect((await refs.get("C1", "T1"))?.ts).toBe("in-C1");
    expect((await refs.get("C2", "T1"))?.ts).toBe("in-C2");
  });

  it("a ref expires on its own, at least 180 days after its last write (at most 30 days more: its period's hash)", async () => {
    await refs.setIfNewer("C1", "T1", ref());
    const ttl = await redis.pttl(keys.refs("C1", periodOf(Date.now())));
    expect(ttl).toBeGreaterThan(180 * 86_400_000);
    expect(ttl).toBeLessThanOrEqual(210 * 86_400_000 + 3_600_000);
  });

  it("markPosting / postingSince; recording the ref ends the posting mark, even when it is not newer", async () => {
    expect(await refs.postingSince("C1", "T1")).toBeUndefined();
    await refs.markPosting("C1", "T1", new Date(T0));
    expect(await refs.postingSince("C1", "T1")).toBe(T0);
    expect(await refs.postingSince("C2", "T1")).toBeUndefined();
    const ttl = await redis.ttl(keys.posting("C1", "T1"));
    expect(ttl).toBeGreaterThan(86_000);
    expect(await refs.setIfNewer("C1", "T1", ref())).toBe(true);
    expect(await refs.postingSince("C1", "T1")).toBeUndefined();
    await refs.markPosting("C1", "T1", new Date(T0));
    expect(await refs.setIfNewer("C1", "T1", ref())).toBe(false);
    expect(await refs.postingSince("C1", "T1")).toBeUndefined();
  });

  it("unmarkPosting ends only the mark of that time: an earlier attempt's mark stays", async () => {
    await refs.markPosting("C1", "T1", new Date(T0), { ifUnmarked: true });
    await refs.unmarkPosting("C1", "T1", new Date(T0 + 1));
    expect(await refs.postingSince("C1", "T1")).toBe(T0);
    await refs.unmarkPosting("C1", "T1", new Date(T0));
    expect(await refs.postingSince("C1", "T1")).toBeUndefined();
  });

  it("markPosting ifUnmarked keeps an earlier attempt's mark (a retry looks back from it), else marks", async () => {
    await refs.markPosting("C1", "T1", new Date(T0 + 5_000), { ifUnmarked: true });
    expect(await refs.postingSince("C1", "T1")).toBe(T0 + 5_000);
    await refs.markPosting("C1", "T1", new Date(T0 + 9_000), { ifUnmarked: true });
    expect(await refs.postingSince("C1", "T1")).toBe(T0 + 5_000);
    expect(await redis.ttl(keys.posting("C1", "T1"))).toBeGreaterThan(86_000);
    await refs.markPosting("C1", "T1", new Date(T0 + 9_000));
    expect(await refs.postingSince("C1", "T1")).toBe(T0 + 9_000);
  });

  it("the channels showing a thread's card: each once, the first posted first, whatever the order of notes", async () => {
    expect(await refs.channelsOf("T1")).toEqual([]);
    await refs.noteChannel("C2", "T1", new Date(T0 + 2_000));
    await refs.noteChannel("C1", "T1", new Date(T0));
    // A card noted again (recorded again after a crash) keeps its first time.
    await refs.noteChannel("C2", "T1", new Date(T0 - 5_000));
    await refs.noteChannel("C3", "T2", new Date(T0));
    expect(await refs.channelsOf("T1")).toEqual(["C1", "C2"]);
    expect(await refs.channelsOf("T2")).toEqual(["C3"]);
    const index = keys.cardIndex(indexShard("T1"), periodOf(Date.now()));
    expect(await redis.pttl(index)).toBeGreaterThan(180 * 24 * 3600 * 1000);
  });
});
