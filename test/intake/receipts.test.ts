import { afterAll, describe, expect, it } from "vitest";
import { markerOf, readMarker } from "../../src/intake/receipts.js";
import { receiptsOnTestRedis } from "../helpers/receipt-books.js";
import { receiptOf, webhookFixture } from "../helpers/webhook-fixtures.js";

const THREAD = webhookFixture("chatthread-created");
const MESSAGE = webhookFixture("chatmessage-created");

describe("recordReceipts", () => {
  const { redis, setUp, count, close } = receiptsOnTestRedis("receipts");
  afterAll(close);

  it("a first receipt goes on; the same receipt again goes on uncounted; another receipt of it is a repeat", async () => {
    const { book, metrics, record } = setUp();
    const first = receiptOf(THREAD, "2026-11-20T10:00:00.000Z", "r1");
    expect(await record(first)).toEqual([true]);
    expect(await readMarker(redis, book.keys, first.c.deliveryId)).toBe("2026-11-20T10:00:00.000Z r1");
    expect(await readMarker(redis, book.keys, first.c.deliveryId, Date.now() + 7 * 86_400_000 - 60_000)).toBe(
      "2026-11-20T10:00:00.000Z r1",
    );
    // Its batch taken again, or its spooled copy: the same receipt.
    expect(await record(first)).toEqual([true]);
    // The same delivery received again: a repeat, even in the same millisecond.
    expect(
      await record(
        receiptOf(THREAD, "2026-11-20T10:00:00.000Z", "r2"),
        receiptOf(THREAD, "2026-11-21T09:00:00.000Z", "r3"),
      ),
    ).toEqual([false, false]);
    expect(await count(metrics, "queued")).toBe(1);
    expect(await count(metrics, "duplicate")).toBe(2);
    // Health counts receipts (repeats too, as deliveries the webhook made), the same one once.
    expect(await book.health.deliveryCounts()).toEqual({ "chatthread-crud": 3 });
    expect(await book.health.lastDeliveries()).toEqual({ "chatthread-crud": "2026-11-21T09:00:00.000Z" });
  });

  it("within one batch the first of two receipts of a delivery goes on and the second is a repeat", async () => {
    const { record } = setUp();
    expect(
      await record(
        receiptOf(THREAD, "2026-11-20T10:00:00.000Z", "r1"),
        receiptOf(MESSAGE, "2026-11-20T10:00:01.000Z", "r2"),
        receiptOf(THREAD, "2026-11-20T10:00:02.000Z", "r3"),
      ),
    ).toEqual([true, true, false]);
  });

  it("a receipt spooled before receipts had ids matches a marker of its time alone", async () => {
    const { book, record } = setUp();
    const old = receiptOf(THREAD, "2026-11-20T10:00:00.000Z");
    expect(markerOf(old)).toBe("2026-11-20T10:00:00.000Z");
    // The marker an older receiver set at its acknowledgement.
    await redis.set(book.keys.dedupe(old.c.deliveryId), "2026-11-20T10:00:00.000Z");
    expect(await record(old)).toEqual([true]);
    expect(await record(receiptOf(THREAD, "2026-11-20T10:00:00.000Z", "r9"))).toEqual([false]);
  });

  it("an invalid delivery's dead letter is kept once per receipt: its copy in the batch, its batch again, its spooled copy later", async () => {
    const { book, metrics, record } = setUp();
    const bad = receiptOf("{not json", "2026-11-20T10:00:00.000Z", "r1");
    // The receipt and its spooled copy in one batch.
    expect(await record(bad, bad)).toEqual([false, false]);
    expect(await readMarker(redis, book.keys, bad.c.deliveryId)).toBe("2026-11-20T10:00:00.000Z r1 kept");
    // The batch taken again, then the copy once more in a later batch.
    expect(await record(bad, bad)).toEqual([false, false]);
    expect(await record(bad)).toEqual([false]);
    expect(await book.health.deadLetterCounts()).toEqual({
      total: 1,
      kept: 1,
      byReason: { invalid_json: 1 },
    });
    expect(await count(metrics, "dead_letter", "other")).toBe(1);
    expect(await book.health.deliveryCounts()).toEqual({ invalid: 1 });
    // The marker keeps its 7 days.
    expect(await readMarker(redis, book.keys, bad.c.deliveryId, Date.now() + 7 * 86_400_000 - 60_000)).toBe(
      "2026-11-20T10:00:00.000Z r1 kept",
    );
  });

  it("a process that died between keeping a dead letter and marking its receipt leaves no second one to the next", async () => {
    const { book, metrics, record } = setUp();
    const bad = receiptOf("{not json", "2026-11-20T10:00:00.000Z", "r1");
    // What the stopped process did: its receipt recorded (the marker, not yet "kept") and its
    // dead letter kept, as recordReceipts does it; then it died before the marker said so.
    await redis.set(book.keys.dedupe(bad.c.deliveryId), markerOf(bad), "EX", 7 * 86_400);
    expect(
      await book.health.addDeadLetter({
        at: bad.receivedAt,
        reason: "invalid_json",
        webhookType: undefined,
        error: bad.c.kind === "dead" ? bad.c.error : "",
        body: bad.body,
        deliveryId: bad.c.deliveryId,
      }),
    ).toBe(true);
    // Its batch is taken again by the next pump.
    expect(await record(bad)).toEqual([false]);
    expect(await book.health.deadLetterCounts()).toEqual({
      total: 1,
      kept: 1,
      byReason: { invalid_json: 1 },
    });
    expect(await readMarker(redis, book.keys, bad.c.deliveryId)).toBe("2026-11-20T10:00:00.000Z r1 kept");
    // Counted where it was kept, not again here.
    expect(await count(metrics, "dead_letter", "other")).toBe(0);
  });

  it("keeps the newest time per type and per community: a replayed spool never turns them back", async () => {
    const { book, record } = setUp();
    await record(receiptOf(THREAD, "2026-11-20T10:00:00.000Z", "r1"));
    const other = THREAD.replace("65f1c0a2e4b0a1d2c3b4a001", "65f1c0a2e4b0a1d2c3b4a002").replace(
      "65f1c0a2e4b0a1d2c3f10a3c",
      "65f1c0a2e4b0a1d2c3f10a3d",
    );
    await record(receiptOf(other, "2026-11-19T00:00:00.000Z", "r2")); // older, another community
    await record(receiptOf(webhookFixture("chatthread-updated"), "2026-11-18T00:00:00.000Z", "r3")); // older
    expect(await book.health.lastThreadDeliveries()).toEqual({
      "65f1c0a2e4b0a1d2c3b4a001": "2026-11-20T10:00:00.000Z",
      "65f1c0a2e4b0a1d2c3b4a002": "2026-11-19T00:00:00.000Z",
    });
    expect((await book.health.lastDeliveries())["chatthread-crud"]).toBe("2026-11-20T10:00:00.000Z");
  });

  it("an invalid delivery is kept as a dead letter on its first receipt, never goes on, and a repeat keeps nothing more", async () => {
    const { book, metrics, record } = setUp();
    const bad = receiptOf("{not json", "2026-11-20T10:00:00.000Z", "r1");
    const unknown = receiptOf(webhookFixture("unknown-type"), "2026-11-20T10:00:01.000Z", "r2");
    expect(await record(bad, unknown)).toEqual([false, false]);
    expect(await record(receiptOf("{not json", "2026-11-20T11:00:00.000Z", "r3"))).toEqual([false]);
    const letters = await book.health.deadLetters(10);
    expect(letters.map((l) => [l.reason, l.at, l.deliveryId])).toEqual([
      ["unknown_type", "2026-11-20T10:00:01.000Z", unknown.c.deliveryId],
      ["invalid_json", "2026-11-20T10:00:00.000Z", bad.c.deliveryId],
    ]);
    expect(letters[0]?.webhookType).toBe("member-crud");
    expect(await book.health.deadLetterCounts()).toMatchObject({ total: 2 });
    // An attacker-chosen type is no metric label.
    expect(await count(metrics, "dead_letter", "other")).toBe(2);
    expect(await count(metrics, "duplicate", "other")).toBe(1);
    expect(await count(metrics, "dead_letter", "member-crud")).toBe(0);
  });
});
