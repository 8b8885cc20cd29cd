import { afterAll, describe, expect, it } from "vitest";
import { readMarker, repeatCheck, type Receipt } from "../../src/intake/receipts.js";
import { receiptsOnTestRedis } from "../helpers/receipt-books.js";
import { receiptOf, webhookFixture } from "../helpers/webhook-fixtures.js";

/*
 * De-duplication markers in one hash per day and shard (issue 38): live exactly 7 days from
 * their recording, whichever day's bucket holds them; the answers of recordReceipts unchanged.
 */

const DAY = 86_400_000;
const THREAD = webhookFixture("chatthread-created");

describe("de-duplication markers in day buckets", () => {
  const { redis, setUp, count, close } = receiptsOnTestRedis("dedupe");
  afterAll(close);

  it("a repeat is caught on every day of the next 7, and goes on once 7 days have passed", async () => {
    const { book, metrics, record, at } = setUp();
    // Late in a day: the marker's bucket is the oldest of the 8 read a week later.
    const t0 = Math.floor(Date.now() / DAY) * DAY - 7 * DAY + 20 * 3_600_000;
    at(t0);
    const first = receiptOf(THREAD, new Date(t0).toISOString(), "r1");
    expect(await record(first)).toEqual([true]);
    for (const later of [1, 2 * 3_600_000, DAY, 3 * DAY, 6 * DAY + 23 * 3_600_000, 7 * DAY - 1_000]) {
      at(t0 + later);
      expect(await record(receiptOf(THREAD, new Date(t0 + later).toISOString(), `r${later}`))).toEqual([
        false,
      ]);
      // The same receipt again (its batch taken again, its spooled copy) still goes on.
      expect(await record(first)).toEqual([true]);
    }
    expect(await count(metrics, "queued")).toBe(1);
    expect(await count(metrics, "duplicate")).toBe(6);
    const isRepeat = repeatCheck(redis, book.keys, () => t0 + 7 * DAY - 1_000);
    expect(await isRepeat(first.c.deliveryId, "2026-01-01T00:00:00.000Z")).toBe(true);
    expect(await isRepeat(first.c.deliveryId, first.receivedAt)).toBe(false);
    // 7 days after it was recorded: gone, a receipt goes on as a first one.
    at(t0 + 7 * DAY + 1_000);
    expect(await readMarker(redis, book.keys, first.c.deliveryId, t0 + 7 * DAY + 1_000)).toBeNull();
    expect(await repeatCheck(redis, book.keys, () => t0 + 7 * DAY + 1_000)(first.c.deliveryId, "x")).toBe(
      false,
    );
    const again = receiptOf(THREAD, new Date(t0 + 7 * DAY + 1_000).toISOString(), "r9");
    expect(await record(again)).toEqual([true]);
    expect(await count(metrics, "queued")).toBe(2);
    expect(await readMarker(redis, book.keys, first.c.deliveryId, t0 + 7 * DAY + 1_000)).toBe(
      `${again.receivedAt} r9`,
    );
  });

  it("answers 0/1/2/3 across days: a dead letter is kept once per receipt, its mark found days later", async () => {
    const { book, metrics, record, at } = setUp();
    const t0 = Date.now() - 5 * DAY;
    at(t0);
    const bad = receiptOf("{not json", new Date(t0).toISOString(), "r1");
    expect(await record(bad)).toEqual([false]); // 1: kept as a dead letter
    at(t0 + 3 * DAY);
    expect(await readMarker(redis, book.keys, bad.c.deliveryId, t0 + 3 * DAY)).toBe(
      `${bad.receivedAt} r1 kept`,
    );
    expect(await record(bad)).toEqual([false]); // 3: its dead letter is kept already
    expect(await record(receiptOf("{not json", new Date(t0 + 3 * DAY).toISOString(), "r2"))).toEqual([false]); // 0
    expect((await book.health.deadLetterCounts()).total).toBe(1);
    expect(await count(metrics, "dead_letter", "other")).toBe(1);
  });

  it("a marker the receiver wrote before the upgrade (one key, 7 days) is still found", async () => {
    const { book, record } = setUp();
    const old = receiptOf(THREAD, "2026-11-20T10:00:00.000Z", "r1");
    await redis.set(book.keys.dedupe(old.c.deliveryId), "2026-11-20T10:00:00.000Z r1", "EX", 3 * 86_400);
    expect(await record(old)).toEqual([true]); // 2: the same receipt
    expect(await record(receiptOf(THREAD, "2026-11-21T10:00:00.000Z", "r2"))).toEqual([false]); // 0
    expect(await readMarker(redis, book.keys, old.c.deliveryId)).toBe("2026-11-20T10:00:00.000Z r1");
  });

  it("a time that is not a canonical ISO time, and an id that is not ours, read back as written", async () => {
    const { book, record } = setUp();
    const odd = { ...receiptOf(THREAD, "2026-11-20 10:00! Z", "r1") };
    odd.c = { ...odd.c, deliveryId: "not-a-hex-id" } as Receipt["c"];
    expect(await record(odd)).toEqual([true]);
    expect(await readMarker(redis, book.keys, "not-a-hex-id")).toBe("2026-11-20 10:00! Z r1");
    expect(await record(odd)).toEqual([true]);
  });

  it("markers of one day share a few hashes (listpack-sized for a few thousand deliveries a day)", async () => {
    const { record, prefix } = setUp();
    const bodies = Array.from({ length: 300 }, (_, i) =>
      THREAD.replace('"threadId"', `"n${i}":1,"threadId"`),
    );
    expect(
      (await record(...bodies.map((b, i) => receiptOf(b, new Date().toISOString(), `r${i}`)))).every(Boolean),
    ).toBe(true);
    const buckets = await redis.keys(`${prefix}:state:health:seen:*`);
    expect(buckets.length).toBeLessThanOrEqual(64);
    expect(buckets.length).toBeGreaterThan(40);
    for (const k of buckets.slice(0, 5)) expect(await redis.object("ENCODING", k)).toBe("listpack");
  });
});
