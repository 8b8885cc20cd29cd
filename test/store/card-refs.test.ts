import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import {
  digestVersion,
  indexShard,
  MessageRefStore,
  PERIOD_MS,
  PERIODS,
  periodOf,
  type LegacyRefs,
  type MessageRef,
  type StoredCard,
} from "../../src/store/message-refs.js";
import { migrateCardRefs } from "../../src/store/migrate-card-refs.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/*
 * The compact layout of card refs (issue 38): one hash per channel and 30-day period, the
 * per-thread index of channels in shards per period, refs of the layout before still found.
 */

const DAY = 86_400_000;
const NOW = Date.now();
const THREAD = "6650c0de030000000010011a";

const card = (o: Partial<StoredCard["digest"]> = {}, c: Partial<StoredCard> = {}): StoredCard => ({
  digest: {
    threadId: THREAD,
    groupId: "6650c0de0200000000000001",
    groupName: "Lumen DB Support",
    communityId: "6650c0de0100000000000001",
    title: "Query latency spikes with 32 concurrent writers (#3)",
    summary:
      "A user sees p99 query latency jump to several seconds when 32 writers run at once. Maintainers suspect contention with compaction.",
    sentiment: "negative",
    keywords: ["performance", "latency", "compaction"],
    messageCount: 5,
    participantCount: 4,
    isQuestionLed: true,
    questionResponseStatus: "pending",
    firstMessageDate: "2026-11-19T14:57:35.852Z",
    lastMessageDate: "2026-11-19T20:42:35.852Z",
    enrichedAt: new Date(NOW - DAY).toISOString(),
    action: "created",
    ...o,
  },
  change: [],
  noLongerMatches: false,
  ...c,
});
const ref = (o: Partial<MessageRef> = {}): MessageRef => ({
  ts: "1741197731.000100",
  enrichedAtMs: NOW - DAY,
  hasSentiment: true,
  groupId: "6650c0de0200000000000001",
  card: card(),
  ...o,
});

describe("card refs in one hash per channel and period", () => {
  let redis: Redis;
  let prefix: string;
  let keys: StateKeys;
  let clock: number;
  let legacy: LegacyRefs;
  let refs: MessageRefStore;
  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("card-refs");
    keys = stateKeys(prefix);
    clock = NOW;
    legacy = { mayRemain: true };
    refs = new MessageRefStore(redis, keys, { legacy, now: () => clock });
  });
  afterEach(async () => {
    await dropPrefix(prefix);
  });

  it("a ref and its card read back exactly, whatever the card holds", async () => {
    const odd = card(
      {
        threadId: "not-hex thread",
        groupId: "another group",
        title: 'Ünïcode — 🚀 "quotes" , @ % and a\nnewline',
        summary: undefined,
        sentiment: undefined,
        keywords: [],
        messageCount: undefined,
        participantCount: undefined,
        isQuestionLed: undefined,
        questionResponseStatus: undefined,
        firstMessageDate: "2026-11-19 14:57", // not a canonical ISO time: kept as written
        lastMessageDate: undefined,
        enrichedAt: "2026-11-19T20:42:35Z",
        action: "updated",
      },
      { change: ["Sentiment: neutral → negative", "3 new messages"], noLongerMatches: true, countsAtMs: NOW },
    );
    const cases: [string, string, MessageRef][] = [
      ["C1", THREAD, ref()],
      ["C1", "T 2,@%", ref({ ts: "1741197731.000200 x", groupId: "g 1\n%", card: odd })],
      ["C2", THREAD, ref({ card: undefined, hasSentiment: false })],
    ];
    for (const [c, t, r] of cases) expect(await refs.setIfNewer(c, t, r)).toBe(true);
    for (const [c, t, r] of cases) expect(await refs.get(c, t)).toEqual(r);
  });

  it("has: a channel's card of the thread is known without reading it, in any period", async () => {
    expect(await refs.has("C1", THREAD)).toBe(false);
    await refs.setIfNewer("C1", THREAD, ref());
    expect(await refs.has("C1", THREAD)).toBe(true);
    expect(await refs.has("C2", THREAD)).toBe(false);
    expect(await refs.has("C1", "6650c0de0300000000100999")).toBe(false);
    // Four periods on, the ref is still where it was written.
    clock = NOW + 4 * PERIOD_MS;
    expect(await refs.has("C1", THREAD)).toBe(true);
  });

  it("reads back on an auto-pipelined connection (the app's), binary values intact", async () => {
    const piped = createRedis(testRedisUrl(), "shared", silentLogger, { enableAutoPipelining: true });
    try {
      const store = new MessageRefStore(piped, keys, { legacy });
      await Promise.all([store.setIfNewer("C1", THREAD, ref()), store.setIfNewer("C2", THREAD, ref())]);
      const [a, b] = await Promise.all([store.get("C1", THREAD), store.get("C2", THREAD)]);
      expect(a).toEqual(ref());
      expect(b).toEqual(ref());
    } finally {
      piped.disconnect();
    }
  });

  it("compare-and-set: an older or equal version never overwrites, the posting mark is cleared either way", async () => {
    await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW, hasSentiment: false, ts: "A" }));
    await refs.markPosting("C1", THREAD, new Date(NOW));
    expect(await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW - 1, ts: "OLD" }))).toBe(false);
    expect(await refs.postingSince("C1", THREAD)).toBeUndefined();
    expect(
      await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW, hasSentiment: false, ts: "SAME" })),
    ).toBe(false);
    expect(await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW, hasSentiment: true, ts: "B" }))).toBe(
      true,
    );
    expect(await refs.get("C1", THREAD)).toMatchObject({ ts: "B", enrichedAtMs: NOW, hasSentiment: true });
    // Without a card, a newer write keeps the card stored.
    await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW + 1, ts: "C", card: undefined }));
    expect(await refs.get("C1", THREAD)).toEqual(ref({ enrichedAtMs: NOW + 1, ts: "C" }));
  });

  it("setCard replaces the card only while the ref's ts is the one given", async () => {
    await refs.setIfNewer("C1", THREAD, ref());
    const counted = card({ messageCount: 9 }, { countsAtMs: NOW });
    expect(await refs.setCard("C1", THREAD, "another ts", counted)).toBe(false);
    expect((await refs.get("C1", THREAD))?.card).toEqual(card());
    expect(await refs.setCard("C1", THREAD, "1741197731.000100", counted)).toBe(true);
    expect(await refs.get("C1", THREAD)).toEqual(ref({ card: counted }));
    expect(await refs.setCard("C1", "no such thread", "1741197731.000100", counted)).toBe(false);
  });

  it("a ref written in an earlier period is found, edited where it is, and moves to the current period when re-recorded", async () => {
    clock = NOW - 170 * DAY;
    const p0 = periodOf(clock);
    await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: clock }));
    clock = NOW;
    const p = periodOf(clock);
    expect(p - p0).toBeGreaterThanOrEqual(5);
    expect(await refs.get("C1", THREAD)).toMatchObject({ enrichedAtMs: NOW - 170 * DAY });
    // A counts edit stays in its period (it does not lengthen the ref's life, as before).
    expect(await refs.setCard("C1", THREAD, "1741197731.000100", card({ messageCount: 7 }))).toBe(true);
    expect(await redis.hlen(keys.refs("C1", p0))).toBe(1);
    // An older enrichment loses against it; a newer one moves it to the current period.
    expect(await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW - 171 * DAY }))).toBe(false);
    expect(await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW, ts: "new" }))).toBe(true);
    expect(await redis.exists(keys.refs("C1", p0))).toBe(0);
    expect(await redis.hlen(keys.refs("C1", p))).toBe(1);
    expect(await refs.get("C1", THREAD)).toMatchObject({ ts: "new", enrichedAtMs: NOW });
  });

  it("a ref is kept at least 180 days after its last write and at most 210 (its period's hash expires)", async () => {
    expect(PERIODS).toBe(7);
    // Written now: its hash lives 180 to 210 days (and an hour of margin for clocks).
    await refs.setIfNewer("C1", THREAD, ref());
    const ttl = await redis.pttl(keys.refs("C1", periodOf(NOW)));
    expect(ttl).toBeGreaterThan(180 * DAY);
    expect(ttl).toBeLessThanOrEqual(210 * DAY + 3_600_000);
    // Written 180 days ago, less a minute: still found today.
    clock = NOW - 180 * DAY + 60_000;
    await refs.setIfNewer("C2", THREAD, ref());
    // Written 211 days ago: its period's hash is gone already.
    clock = NOW - 211 * DAY;
    await refs.setIfNewer("C3", THREAD, ref());
    clock = NOW;
    expect(await refs.get("C2", THREAD)).toEqual(ref());
    expect(await refs.get("C3", THREAD)).toBeUndefined();
    expect(await redis.exists(keys.refs("C3", periodOf(NOW - 211 * DAY)))).toBe(0);
    // The index of channels follows the same periods.
    clock = NOW - 179 * DAY;
    await refs.noteChannel("C2", THREAD, new Date(clock));
    clock = NOW;
    expect(await refs.channelsOf(THREAD)).toEqual(["C2"]);
    const index = await redis.pttl(keys.cardIndex(indexShard(THREAD), periodOf(NOW - 179 * DAY)));
    expect(index).toBeGreaterThan(DAY);
    expect(PERIOD_MS).toBe(30 * DAY);
  });

  it("the index of channels: first posted first, kept on a second note, moved to the current period", async () => {
    clock = NOW - 100 * DAY;
    await refs.noteChannel("C2", THREAD, new Date(NOW - 100 * DAY));
    clock = NOW;
    await refs.noteChannel("C1", THREAD, new Date(NOW - 200 * DAY));
    await refs.noteChannel("C2", THREAD, new Date(NOW - 300 * DAY));
    expect(await refs.channelsOf(THREAD)).toEqual(["C1", "C2"]);
    const shard = indexShard(THREAD);
    expect(await redis.exists(keys.cardIndex(shard, periodOf(NOW - 100 * DAY)))).toBe(0);
    expect(await redis.hlen(keys.cardIndex(shard, periodOf(NOW)))).toBe(1);
    expect(await refs.channelsOf("another")).toEqual([]);
  });

  describe("the layout before issue 38", () => {
    /** A ref as the old SET_IF_NEWER wrote it. */
    const writeOld = async (channelId: string, threadId: string, r: MessageRef, ttlMs = 180 * DAY) => {
      const key = keys.messageRef(channelId, threadId);
      await redis.hset(
        key,
        "version",
        String(digestVersion(r.enrichedAtMs, r.hasSentiment)),
        "ts",
        r.ts,
        "enrichedAtMs",
        String(r.enrichedAtMs),
        "hasSentiment",
        r.hasSentiment ? "1" : "0",
        "groupId",
        r.groupId,
        ...(r.card ? ["card", JSON.stringify(r.card)] : []),
      );
      await redis.pexpire(key, ttlMs);
    };

    it("a card posted before the upgrade is found, and edited after it: its ref moves to the new layout", async () => {
      await writeOld("C1", THREAD, ref());
      await redis.zadd(keys.threadCards(THREAD), NOW - 10 * DAY, "C1");
      await redis.set(keys.legacyPosting("C9", THREAD), String(NOW));
      expect(await refs.get("C1", THREAD)).toEqual(ref());
      expect(await refs.has("C1", THREAD)).toBe(true);
      expect(await refs.channelsOf(THREAD)).toEqual(["C1"]);
      // An older enrichment still loses against the old ref.
      expect(await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW - 2 * DAY, ts: "old" }))).toBe(
        false,
      );
      expect(await redis.exists(keys.messageRef("C1", THREAD))).toBe(0);
      // A button's counts edit, then a re-enrichment.
      expect(await refs.setCard("C1", THREAD, "1741197731.000100", card({ messageCount: 8 }))).toBe(true);
      expect((await refs.get("C1", THREAD))?.card?.digest.messageCount).toBe(8);
      expect(await refs.setIfNewer("C1", THREAD, ref({ enrichedAtMs: NOW }))).toBe(true);
      expect(await refs.get("C1", THREAD)).toEqual(ref({ enrichedAtMs: NOW }));
      // A second channel's first card joins the thread's old index, which moves over.
      await refs.noteChannel("C2", THREAD, new Date(NOW));
      expect(await redis.exists(keys.threadCards(THREAD))).toBe(0);
      expect(await refs.channelsOf(THREAD)).toEqual(["C1", "C2"]);
      expect(await refs.postingSince("C9", THREAD)).toBe(NOW); // one Redis: the same name as before
    });

    it("an old ref without a card, or with one it cannot read, is found without a card", async () => {
      await writeOld("C1", THREAD, ref({ card: undefined }));
      await writeOld("C2", THREAD, ref({ card: undefined }));
      await redis.hset(keys.messageRef("C2", THREAD), "card", "{not json");
      expect(await refs.get("C1", THREAD)).toEqual(ref({ card: undefined }));
      expect(await refs.get("C2", THREAD)).toEqual(ref({ card: undefined }));
    });

    it("the start migration moves every old ref and index, keeps their expiry, and stops the old reads", async () => {
      const other = stateKeys(`${prefix}:w:T0WS`);
      for (let i = 0; i < 30; i++)
        await writeOld(`C${i % 3}`, `t${i}`, ref({ ts: `1.${i}` }), (100 + i) * DAY);
      await redis.hset(other.messageRef("C1", "tw"), "ts", "9.1", "groupId", "g"); // no version: before cards
      await redis.zadd(keys.threadCards("t1"), 0, "C1", NOW, "C5");
      const result = await migrateCardRefs(redis, prefix, silentLogger, legacy, { now: () => clock });
      expect(result).toEqual({ ran: true, counts: { refs: 31, indexes: 1 } });
      expect(legacy.mayRemain).toBe(false);
      expect(await redis.keys(`${prefix}:*state:ref:*`)).toEqual([]);
      expect(await redis.keys(`${prefix}:*state:thread-cards:*`)).toEqual([]);
      for (let i = 0; i < 30; i++)
        expect(await refs.get(`C${i % 3}`, `t${i}`)).toEqual(ref({ ts: `1.${i}` }));
      expect(await refs.channelsOf("t1")).toEqual(["C1", "C5"]);
      const ws = new MessageRefStore(redis, other, { legacy });
      expect(await ws.get("C1", "tw")).toEqual({
        ts: "9.1",
        enrichedAtMs: 0,
        hasSentiment: false,
        groupId: "g",
      });
      // A ref with 100 days left went to the period of its last write (80 days ago).
      expect(
        await redis.hexists(keys.refs("C0", periodOf(NOW - 80 * DAY)), Buffer.from("t0\xff", "latin1")),
      ).toBe(1);
      expect(await migrateCardRefs(redis, prefix, silentLogger, { mayRemain: true })).toEqual({
        ran: false,
        reason: "done",
      });
    });
  });
});
