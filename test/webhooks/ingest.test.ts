import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { receiptBooks } from "../../src/intake/receipt-books.js";
import { silentLogger } from "../../src/log.js";
import { createMetrics, type Metrics } from "../../src/metrics.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { classifyDelivery } from "../../src/intake/classify-delivery.js";
import { createReceiver } from "../../src/webhooks/create-receiver.js";
import { DeliveryRecorder } from "../../src/intake/recorder.js";
import { DeliveryIngest } from "../../src/webhooks/ingest.js";
import { Spool } from "../../src/webhooks/spool.js";
import { freePort } from "../helpers/global-redis.js";
import { openIntake, type Intake } from "../helpers/intake.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { readMarker } from "../../src/intake/receipts.js";
import { webhookFixture } from "../helpers/webhook-fixtures.js";

const THREAD = webhookFixture("chatthread-created");
const MESSAGE = webhookFixture("chatmessage-created");

/** insight_relay_* counter or gauge value for exactly these labels, read from the registry. */
async function metricValue(
  metrics: Metrics,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const all = await metrics.registry.getMetricsAsJSON();
  const m = all.find((x) => x.name === name);
  const values = (m?.values ?? []) as { value: number; labels: Record<string, string | number> }[];
  const want = Object.entries(labels);
  return (
    values.find(
      (v) => Object.keys(v.labels).length === want.length && want.every(([k, x]) => v.labels[k] === x),
    )?.value ?? 0
  );
}

const deliveriesMetric = (metrics: Metrics, type: string, outcome: string) =>
  metricValue(metrics, "insight_relay_webhook_deliveries_total", { type, outcome });
const acksMetric = (metrics: Metrics, outcome: string) =>
  metricValue(metrics, "insight_relay_webhook_acks_total", { outcome });

/** A delivery's id, as the intake pump computes it. */
const idOf = (body: string) => classifyDelivery(body).deliveryId;

async function ready(redis: Redis): Promise<Redis> {
  if (redis.status !== "ready") await new Promise((r) => redis.once("ready", r));
  return redis;
}

/** One receiver's worth of parts over one Redis connection, as the web role builds them. */
function receiver(redis: Redis, prefix: string, spool: Spool, metrics: Metrics, timeoutMs = 1_000) {
  return createReceiver({ redis, prefix, spool, logger: silentLogger, metrics, recordTimeoutMs: timeoutMs });
}

describe("DeliveryIngest with Redis up", () => {
  let prefix: string;
  let redis: Redis;
  let spoolDir: string;
  let metrics: Metrics;
  let r: ReturnType<typeof receiver>;
  let intake: Intake;

  beforeEach(async () => {
    prefix = uniquePrefix("ingest");
    redis = await ready(createRedis(testRedisUrl(), "command", silentLogger));
    spoolDir = mkdtempSync(join(tmpdir(), "ingest-spool-"));
    metrics = createMetrics();
    r = receiver(redis, prefix, new Spool(spoolDir, silentLogger), metrics);
    intake = openIntake({ redis, prefix, metrics });
  });
  afterEach(async () => {
    r.ingest.close();
    await intake.close();
    redis.disconnect();
    await dropPrefix(prefix);
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it("a delivery goes to the intake as received; the pump records its receipt and queues a job under the delivery id", async () => {
    const at = new Date("2025-03-05T18:02:12.000Z");
    const res = await r.ingest.ingest(THREAD, at);
    expect(res).toEqual({ outcome: "recorded" });
    // Classifying is the pump's, counting the answer the route's: ingesting counts neither.
    expect(await acksMetric(metrics, "recorded")).toBe(0);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(0);
    // The acknowledgement adds no job, sets no marker and parses nothing: one entry, as received.
    expect(await intake.deliveries.getJobCounts("waiting")).toEqual({ waiting: 0 });
    expect(await readMarker(redis, r.keys, idOf(THREAD))).toBeNull();
    expect(await intake.entries()).toEqual([
      {
        kind: "received",
        receivedAt: "2025-03-05T18:02:12.000Z",
        receipt: expect.stringMatching(/^[0-9a-z]+$/) as unknown,
        body: THREAD,
      },
    ]);

    expect(await intake.drain()).toBe(1);
    expect(await intake.entries()).toEqual([]);
    // The receipt: a 7-day marker holding the receipt time and id.
    expect(await readMarker(redis, r.keys, idOf(THREAD))).toMatch(/^2025-03-05T18:02:12\.000Z [0-9a-z]+$/);
    // Live for 7 days from its recording, and no longer.
    const marker = await readMarker(redis, r.keys, idOf(THREAD));
    expect(await readMarker(redis, r.keys, idOf(THREAD), Date.now() + 7 * 86_400_000 - 60_000)).toBe(marker);
    expect(await readMarker(redis, r.keys, idOf(THREAD), Date.now() + 7 * 86_400_000 + 1_000)).toBeNull();
    const job = await intake.single(idOf(THREAD));
    expect(job?.name).toBe("chatthread-crud");
    expect(job?.data).toMatchObject({
      deliveryId: idOf(THREAD),
      receivedAt: "2025-03-05T18:02:12.000Z",
      event: { webhookType: "chatthread-crud", payload: { threadId: "65f1c0a2e4b0a1d2c3f10a3c" } },
      deduplicated: true,
    });
    expect(await intake.deliveries.getJobCounts("waiting")).toEqual({ waiting: 1 });
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(1);
  });

  it("the same delivery again, even re-serialised, is a duplicate: recorded, but no job", async () => {
    const reordered = JSON.stringify(
      Object.fromEntries(Object.entries(JSON.parse(THREAD) as Record<string, unknown>).reverse()),
    );
    expect(idOf(reordered)).toBe(idOf(THREAD));
    const outcomes = [
      await r.ingest.ingest(THREAD),
      await r.ingest.ingest(THREAD),
      await r.ingest.ingest(reordered),
    ].map((x) => x.outcome);
    expect(outcomes).toEqual(["recorded", "recorded", "recorded"]);
    expect(await intake.drain()).toBe(3);
    expect(await intake.deliveries.getJobCounts("waiting")).toEqual({ waiting: 1 });
    expect((await intake.waiting()).map((d) => d.deliveryId)).toEqual([idOf(THREAD)]);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(1);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(2);
    // A repeat in a later batch too.
    await r.ingest.ingest(THREAD);
    expect(await intake.drain()).toBe(1);
    expect(await intake.waiting()).toHaveLength(1);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(3);
  });

  it("a spooled copy of the receipt that set the marker is queued again; a spooled copy of another receipt is a duplicate", async () => {
    const at = new Date("2025-03-05T18:02:12.000Z");
    expect((await r.ingest.ingest(THREAD, at)).outcome).toBe("recorded");
    const [first] = await intake.entries();
    const receipt = first?.kind === "received" ? first.receipt : undefined;
    expect(receipt).toBeDefined();
    expect(await intake.drain()).toBe(1);
    // Its first attempt timed out in the client after Redis had it: the copy is on disk too.
    r.spool.append({ receivedAt: at.toISOString(), body: THREAD, ...(receipt ? { receipt } : {}) });
    // The same delivery received earlier, spooled and replayed only now: a repeat.
    r.spool.append({ receivedAt: "2025-03-05T18:00:00.000Z", body: THREAD, receipt: "other" });
    // Received again in the same millisecond (sent twice at once): another receipt, a repeat.
    r.spool.append({ receivedAt: at.toISOString(), body: THREAD, receipt: "another" });
    await r.ingest.replay();
    expect(await r.spool.sizeOnDisk()).toBe(0);
    expect((await intake.entries()).map((e) => e.kind === "received" && e.receivedAt)).toEqual([
      at.toISOString(),
      "2025-03-05T18:00:00.000Z",
      at.toISOString(),
    ]);
    expect(await intake.drain()).toBe(3);
    // The copy of the same receipt went on (its job id keeps one job); the others are repeats.
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(1);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(2);
    expect(await intake.deliveries.getJobCounts("waiting")).toEqual({ waiting: 1 });
    expect((await intake.single(idOf(THREAD)))?.data.receivedAt).toBe(at.toISOString());
    expect(await readMarker(redis, r.keys, idOf(THREAD))).toBe(`${at.toISOString()} ${receipt ?? ""}`);
    // The copy of a receipt counted already is not counted again; the repeats are.
    expect(await r.health.deliveryCounts()).toEqual({ "chatthread-crud": 3 });
  });

  it("deliveries acknowledged together keep their order, each its own receipt: one sent twice at once is a first receipt and a repeat", async () => {
    const at = new Date("2025-03-05T18:02:12.000Z");
    // One event-loop turn: the recorder appends them together, in the order they came.
    const outcomes = await Promise.all([
      r.ingest.ingest(THREAD, at),
      r.ingest.ingest(MESSAGE, at),
      r.ingest.ingest(THREAD, at),
    ]);
    expect(outcomes.map((o) => o.outcome)).toEqual(["recorded", "recorded", "recorded"]);
    const entries = await intake.entries();
    expect(entries.map((e) => e.kind === "received" && [e.body, e.receivedAt])).toEqual([
      [THREAD, at.toISOString()],
      [MESSAGE, at.toISOString()],
      [THREAD, at.toISOString()],
    ]);
    const receipts = entries.map((e) => (e.kind === "received" ? e.receipt : undefined));
    expect(receipts.every((x) => typeof x === "string")).toBe(true);
    expect(new Set(receipts).size).toBe(3);
    expect(await intake.drain()).toBe(3);
    expect((await intake.waiting()).map((d) => d.deliveryId)).toEqual([idOf(THREAD), idOf(MESSAGE)]);
    // The marker holds the first receipt; the second, of the same millisecond, is not taken for
    // a copy of it (its receipt id differs): a repeat, counted, never queued.
    expect(await readMarker(redis, r.keys, idOf(THREAD))).toBe(`${at.toISOString()} ${receipts[0] ?? ""}`);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(1);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(1);
    expect(await r.health.deliveryCounts()).toEqual({ "chatthread-crud": 2, "chatmessage-crud": 1 });
  });

  it("a body that looks like an intake entry's head is kept whole, and names no workspace", async () => {
    const forged = `d1 2020-01-01T00:00:00.000Z T0FORGED r1\n${THREAD}`;
    await r.ingest.ingest(forged, new Date("2025-03-05T18:02:12.000Z"));
    const [entry] = await intake.entries();
    expect(entry).toEqual({
      kind: "received",
      receivedAt: "2025-03-05T18:02:12.000Z",
      receipt: expect.stringMatching(/^[0-9a-z]+$/) as unknown,
      body: forged,
    });
    expect(await intake.drain()).toBe(1);
    // Not JSON as a whole: the deployment's dead letter, never a job nor a receipt of another workspace.
    expect((await r.health.deadLetters()).map((l) => [l.reason, l.at, l.body])).toEqual([
      ["invalid_json", "2025-03-05T18:02:12.000Z", forged],
    ]);
    expect(await intake.waiting()).toEqual([]);
    expect(await receiptBooks(redis, prefix)("T0FORGED").health.deliveryCounts()).toEqual({});
  });

  it("a workspace's deliveries, recorded or spooled and replayed, reach the intake stamped with it; their receipts are its own", async () => {
    const ws = "T0ALPHA";
    // As multi-workspace mode builds a workspace's ingest: the deployment's intake, its own spool.
    const wsSpool = new Spool(join(spoolDir, "w", ws), silentLogger);
    const wsIngest = new DeliveryIngest(
      new DeliveryRecorder(redis, { key: r.keys.intake, workspaceId: ws }),
      wsSpool,
      silentLogger,
      metrics,
    );
    try {
      await wsIngest.ingest(THREAD, new Date("2025-03-05T18:02:12.000Z"));
      // Spooled while Redis stalled: a spool line names no workspace; the workspace's ingest replays it.
      wsSpool.append({ receivedAt: "2025-03-05T18:03:00.000Z", body: MESSAGE, receipt: "spooled1" });
      await wsIngest.replay();
      expect(await wsSpool.sizeOnDisk()).toBe(0);
      await r.ingest.ingest(THREAD, new Date("2025-03-05T18:04:00.000Z")); // the deployment's own
      expect((await intake.entries()).map((e) => e.kind === "received" && [e.body, e.workspaceId])).toEqual([
        [THREAD, ws],
        [MESSAGE, ws],
        [THREAD, undefined],
      ]);
      expect(await intake.drain()).toBe(3);
      // The same delivery in the workspace and in the deployment: a first receipt in each.
      // (The jobs' workspace stamps are the pump's: test/jobs/intake-pump.test.ts.)
      expect((await intake.waiting()).map((d) => d.deliveryId)).toEqual([
        idOf(THREAD),
        idOf(MESSAGE),
        idOf(THREAD),
      ]);
      expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(2);
      expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(0);
      const book = receiptBooks(redis, prefix)(ws);
      expect(await readMarker(redis, book.keys, idOf(MESSAGE))).toBe("2025-03-05T18:03:00.000Z spooled1");
      expect(await readMarker(redis, r.keys, idOf(MESSAGE))).toBeNull();
      expect(await book.health.deliveryCounts()).toEqual({ "chatthread-crud": 1, "chatmessage-crud": 1 });
      expect(await r.health.deliveryCounts()).toEqual({ "chatthread-crud": 1 });
    } finally {
      wsIngest.close();
    }
  });

  it("an older receiver's spooled copy (no receipt id) of a receipt it recorded goes on again, once; of another receipt, it is a repeat", async () => {
    const at = "2025-03-05T18:02:12.000Z";
    const c = classifyDelivery(THREAD);
    if (c.kind !== "valid") throw new Error("the fixture is not a valid delivery");
    // What the older receiver's script did before its client gave up waiting (it then spooled):
    // the marker, holding the receipt time alone, and the job entry.
    await redis.set(r.keys.dedupe(c.deliveryId), at, "EX", 7 * 86_400);
    await redis.rpush(
      r.keys.intake,
      JSON.stringify({
        job: { deliveryId: c.deliveryId, receivedAt: at, event: c.event, deduplicated: true },
      }),
    );
    // Its spool, replayed by this receiver after the upgrade: that copy, and a repeat received earlier.
    r.spool.append({ receivedAt: at, body: THREAD });
    r.spool.append({ receivedAt: "2025-03-05T18:00:00.000Z", body: THREAD });
    await r.ingest.replay();
    expect(await r.spool.sizeOnDisk()).toBe(0);
    expect(
      (await intake.entries()).map((e) =>
        e.kind === "received" ? [e.kind, e.receivedAt, e.receipt] : [e.kind, e.job.receivedAt],
      ),
    ).toEqual([
      ["recorded", at],
      ["received", at, undefined],
      ["received", "2025-03-05T18:00:00.000Z", undefined],
    ]);
    expect(await intake.drain()).toBe(3);
    expect((await intake.waiting()).map((d) => [d.deliveryId, d.receivedAt])).toEqual([[c.deliveryId, at]]);
    expect(await readMarker(redis, r.keys, c.deliveryId)).toBe(at);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(1);
    // The copy was counted by the older receiver's script; the repeat is counted now.
    expect(await r.health.deliveryCounts()).toEqual({ "chatthread-crud": 1 });
  });

  it("invalid deliveries are kept as dead letters, once, and never queued", async () => {
    await r.ingest.ingest("{not json", new Date("2025-03-05T18:05:00.000Z"));
    await r.ingest.ingest(webhookFixture("unknown-type"));
    // Kept by the pump, not at the acknowledgement.
    expect(await r.health.deadLetterCounts()).toMatchObject({ total: 0 });
    expect(await intake.drain()).toBe(2);
    await r.ingest.ingest("{not json");
    expect(await intake.drain()).toBe(1);
    const letters = await r.health.deadLetters(10);
    expect(letters.map((l) => l.reason)).toEqual(["unknown_type", "invalid_json"]);
    expect(letters[1]).toMatchObject({
      at: "2025-03-05T18:05:00.000Z",
      body: "{not json",
      deliveryId: idOf("{not json"),
    });
    expect(letters[1]?.webhookType).toBeUndefined();
    expect(letters[0]).toMatchObject({
      webhookType: "member-crud",
      error: 'unknown webhookType "member-crud"',
    });
    expect(await r.health.deadLetterCounts()).toEqual({
      total: 2,
      kept: 2,
      byReason: { invalid_json: 1, unknown_type: 1 },
    });
    expect(await intake.entries()).toEqual([]);
    expect(await intake.deliveries.getJobCounts("waiting")).toEqual({ waiting: 0 });
    // An attacker-chosen type does not become a metric label.
    expect(await deliveriesMetric(metrics, "other", "dead_letter")).toBe(2);
    expect(await deliveriesMetric(metrics, "other", "duplicate")).toBe(1);
    expect(await deliveriesMetric(metrics, "member-crud", "dead_letter")).toBe(0);
    expect(await metricValue(metrics, "insight_relay_dead_letters_total", { reason: "invalid_json" })).toBe(
      1,
    );
    expect(await metricValue(metrics, "insight_relay_dead_letters_total", { reason: "unknown_type" })).toBe(
      1,
    );
  });

  it("records the last delivery time per type, and counts deliveries (repeats included)", async () => {
    await r.ingest.ingest(THREAD, new Date("2025-03-05T18:02:12.000Z"));
    await r.ingest.ingest(MESSAGE, new Date("2025-03-05T18:03:00.000Z"));
    await r.ingest.ingest(webhookFixture("chatthread-updated"), new Date("2025-03-06T09:42:00.000Z"));
    await r.ingest.ingest(THREAD, new Date("2025-03-06T09:43:00.000Z")); // a repeat
    await r.ingest.ingest("garbage", new Date("2025-03-06T10:00:00.000Z"));
    expect(await r.health.lastDeliveries()).toEqual({});
    expect(await intake.drain()).toBe(5);
    expect(await r.health.lastDeliveries()).toEqual({
      "chatthread-crud": "2025-03-06T09:43:00.000Z",
      "chatmessage-crud": "2025-03-05T18:03:00.000Z",
      invalid: "2025-03-06T10:00:00.000Z",
    });
    expect(await r.health.deliveryCounts()).toEqual({
      "chatthread-crud": 3,
      "chatmessage-crud": 1,
      invalid: 1,
    });
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(2);
    expect(await deliveriesMetric(metrics, "chatmessage-crud", "queued")).toBe(1);
  });

  it("keeps the last thread delivery per community; an older one (a replayed spool) never turns it back", async () => {
    const other = THREAD.replace("65f1c0a2e4b0a1d2c3b4a001", "65f1c0a2e4b0a1d2c3b4a002").replace(
      "65f1c0a2e4b0a1d2c3f10a3c",
      "65f1c0a2e4b0a1d2c3f10a3d",
    );
    await r.ingest.ingest(THREAD, new Date("2025-03-06T09:43:00.000Z"));
    await r.ingest.ingest(other, new Date("2025-03-06T09:44:00.000Z"));
    await r.ingest.ingest(MESSAGE, new Date("2025-03-06T09:50:00.000Z")); // messages prove nothing of threads
    await r.ingest.ingest(webhookFixture("chatthread-updated"), new Date("2025-03-05T00:00:00.000Z")); // older
    expect(await intake.drain()).toBe(4);
    expect(await r.health.lastThreadDeliveries()).toEqual({
      "65f1c0a2e4b0a1d2c3b4a001": "2025-03-06T09:43:00.000Z",
      "65f1c0a2e4b0a1d2c3b4a002": "2025-03-06T09:44:00.000Z",
    });
    expect((await r.health.lastDeliveries())["chatthread-crud"]).toBe("2025-03-06T09:44:00.000Z");
  });
});

describe("DeliveryIngest when Redis is down, then back", () => {
  let prefix: string;
  let live: Redis;
  let dead: Redis;
  let spoolDir: string;
  let metrics: Metrics;
  let spool: Spool;
  let down: ReturnType<typeof receiver>;
  let up: ReturnType<typeof receiver> | undefined;
  let intake: Intake;
  let keys: StateKeys;

  beforeAll(async () => {
    prefix = uniquePrefix("ingest-down");
    keys = stateKeys(prefix);
    // Nothing listens on this port: the command connection never becomes ready.
    dead = createRedis(`redis://127.0.0.1:${await freePort()}`, "command", silentLogger);
    live = await ready(createRedis(testRedisUrl(), "command", silentLogger));
    spoolDir = mkdtempSync(join(tmpdir(), "ingest-spool-"));
    metrics = createMetrics();
    spool = new Spool(spoolDir, silentLogger);
    down = receiver(dead, prefix, spool, metrics);
    intake = openIntake({ redis: live, prefix, metrics });
  });
  afterAll(async () => {
    down.ingest.close();
    up?.ingest.close();
    dead.disconnect();
    await intake.close();
    live.disconnect();
    await dropPrefix(prefix);
    rmSync(spoolDir, { recursive: true, force: true });
  });

  let threadId = "";
  it("answers `spooled` for every delivery, and the spool holds them on disk", async () => {
    expect(down.recorder.available).toBe(false);
    const a = await down.ingest.ingest(THREAD);
    const b = await down.ingest.ingest(MESSAGE);
    const repeat = await down.ingest.ingest(THREAD);
    const bad = await down.ingest.ingest("{not json");
    expect([a.outcome, b.outcome, repeat.outcome, bad.outcome]).toEqual([
      "spooled",
      "spooled",
      "spooled",
      "spooled",
    ]);
    threadId = idOf(THREAD);
    expect(spool.pending).toBe(4);
    expect(await spool.sizeOnDisk()).toBe(4);
    expect(await metricValue(metrics, "insight_relay_spool_deliveries")).toBe(4);
  });

  it("a replay while Redis is still down changes nothing", async () => {
    await down.ingest.replay();
    expect(await spool.sizeOnDisk()).toBe(4);
    expect(spool.pending).toBe(4);
  });

  it("with Redis live again, new deliveries still spool behind the waiting ones (order kept)", async () => {
    down.ingest.close();
    up = receiver(live, prefix, spool, metrics);
    expect(up.recorder.available).toBe(true);
    const later = await up.ingest.ingest(webhookFixture("chatthread-updated"));
    expect(later.outcome).toBe("spooled");
    expect(await spool.sizeOnDisk()).toBe(5);
  });

  it("replay moves each spooled delivery into the queue exactly once, in arrival order", async () => {
    const u = up;
    if (!u) throw new Error("previous test did not run");
    await u.ingest.replay();
    expect(await spool.sizeOnDisk()).toBe(0);
    expect(spool.pending).toBe(0);
    expect(await metricValue(metrics, "insight_relay_spool_deliveries")).toBe(0);
    // A replay classifies nothing: the pump does.
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(0);
    expect((await intake.entries()).map((e) => e.kind === "received" && e.body)).toEqual([
      THREAD,
      MESSAGE,
      THREAD,
      "{not json",
      webhookFixture("chatthread-updated"),
    ]);
    // All five reach the intake in arrival order; the pump drops the repeat and keeps the dead letter.
    expect(await intake.drain()).toBe(5);
    // Replayed together: one batch, one job.
    expect(await intake.deliveries.getJobCounts("waiting", "delayed", "failed")).toEqual({
      waiting: 1,
      delayed: 0,
      failed: 0,
    });
    const queued = await intake.waiting();
    expect(queued.map((d) => d.event.webhookType)).toEqual([
      "chatthread-crud",
      "chatmessage-crud",
      "chatthread-crud",
    ]);
    expect(queued[0]?.deliveryId).toBe(threadId);
    expect(queued[2]?.event.actionType).toBe("updated");
    const letters = await u.health.deadLetters();
    expect(letters.map((l) => l.body)).toEqual(["{not json"]);
    expect(await u.health.deliveryCounts()).toEqual({
      "chatthread-crud": 3,
      "chatmessage-crud": 1,
      invalid: 1,
    });
    expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(1);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(2);

    // A second replay, and the same deliveries arriving again, add nothing.
    await u.ingest.replay();
    expect(await intake.entries()).toEqual([]);
    expect((await u.ingest.ingest(THREAD)).outcome).toBe("recorded");
    expect(await intake.drain()).toBe(1);
    expect(await intake.waiting()).toHaveLength(3);
    expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(2);
    expect(await readMarker(live, keys, threadId)).not.toBeNull();
  });

  it("once the spool is empty, deliveries go straight to Redis", async () => {
    const u = up;
    if (!u) throw new Error("previous test did not run");
    const body = webhookFixture("chatmessage-updated");
    const res = await u.ingest.ingest(body);
    expect(res.outcome).toBe("recorded");
    expect(await spool.sizeOnDisk()).toBe(0);
    expect((await intake.entries()).map((e) => e.kind === "received" && e.body)).toEqual([body]);
    expect(await intake.drain()).toBe(1);
    expect((await intake.waiting()).map((d) => d.deliveryId).at(-1)).toBe(idOf(body));
  });
});

describe("DeliveryIngest when Redis answers too late", () => {
  let own: OwnRedis;
  let admin: Redis;
  let conn: Redis;
  let spoolDir: string;
  let r: ReturnType<typeof receiver>;
  let intake: Intake;
  const prefix = uniquePrefix("ingest-slow");

  beforeAll(async () => {
    own = await startOwnRedis();
    admin = await ready(createRedis(own.url, "shared", silentLogger));
    // The receiver's fail-fast connection, with its timeouts scaled down so the test is quick.
    conn = await ready(createRedis(own.url, "command", silentLogger, { commandTimeout: 300 }));
    spoolDir = mkdtempSync(join(tmpdir(), "ingest-spool-"));
    r = receiver(conn, prefix, new Spool(join(spoolDir, "hasty"), silentLogger), createMetrics(), 100);
    intake = openIntake({ redis: admin, prefix });
    // The connection has answered once, so a stalled record below is the RPUSH itself waiting.
    const warm = receiver(
      conn,
      uniquePrefix("ingest-warm"),
      new Spool(join(spoolDir, "warm"), silentLogger),
      createMetrics(),
    );
    expect((await warm.ingest.ingest(MESSAGE)).outcome).toBe("recorded");
    warm.ingest.close();
  });
  afterAll(async () => {
    r.ingest.close();
    await intake.close();
    conn.disconnect();
    admin.disconnect();
    await own.close();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it("Redis slower than the receiver's timeout: spooled, then queued exactly once when it catches up", async () => {
    // A connection that waits for the stalled reply instead of giving up on it.
    const patient = await ready(createRedis(own.url, "command", silentLogger, { commandTimeout: 5_000 }));
    const spool = new Spool(join(spoolDir, "patient"), silentLogger);
    const patientPrefix = uniquePrefix("ingest-slow");
    const p = receiver(patient, patientPrefix, spool, createMetrics(), 100);
    const patientIntake = openIntake({ redis: admin, prefix: patientPrefix });
    try {
      await admin.call("CLIENT", "PAUSE", "400", "WRITE");
      const res = await p.ingest.ingest(MESSAGE);
      expect(res.outcome).toBe("spooled");
      await new Promise((done) => setTimeout(done, 600)); // the pause ends; the late script completes
      await p.ingest.replay();
      // The late RPUSH's entry, and the spooled copy's: the same receipt time, so the marker the
      // first sets lets the second go on; one job under the delivery id keeps one of them.
      const entries = await patientIntake.entries();
      expect(entries).toHaveLength(2);
      const receipts = entries.map((e) => e.kind === "received" && `${e.receivedAt} ${e.receipt ?? ""}`);
      expect(new Set(receipts).size).toBe(1);
      expect(await patientIntake.drain()).toBe(2);
      // The marker holds the receipt both entries carry; it was counted once.
      expect(await readMarker(admin, p.keys, idOf(MESSAGE))).toBe(receipts[0]);
      expect(await p.health.deliveryCounts()).toEqual({ "chatmessage-crud": 1 });
      expect(await patientIntake.deliveries.getJobCounts("waiting")).toEqual({ waiting: 1 });
      expect((await patientIntake.deliveries.getJob(idOf(MESSAGE)))?.name).toBe("chatmessage-crud");
      expect(await spool.sizeOnDisk()).toBe(0);
    } finally {
      p.ingest.close();
      await patientIntake.close();
      patient.disconnect();
    }
  });

  // The RPUSH can time out in the client (ioredis commandTimeout, 2 s on the `command`
  // connection) and still run in Redis afterwards: the receiver has spooled the delivery, and the
  // pump must not take the spooled copy for a "duplicate" (answered 2xx but never queued) should
  // the late entry's receipt be recorded first. The marker holds the receipt time, which the
  // spooled copy carries too, so the copy goes on.
  it("a delivery spooled because Redis stalled is queued once Redis catches up", async () => {
    // Writes stall for 600 ms (a slow disk, a long script): longer than both timeouts.
    await admin.call("CLIENT", "PAUSE", "600", "WRITE");
    const res = await r.ingest.ingest(THREAD);
    expect(res.outcome).toBe("spooled");
    await new Promise((done) => setTimeout(done, 800)); // let the pause end and the stalled script run
    await r.ingest.replay();
    expect(await r.spool.sizeOnDisk()).toBe(0);
    const entries = await intake.entries();
    expect(entries.map((e) => e.kind === "received" && e.body)).toEqual([THREAD, THREAD]);
    // The late RPUSH's entry and its spooled copy: one receipt (its time and id), twice.
    const [late, copy] = entries;
    expect(late?.kind === "received" && late.receipt).toEqual(expect.any(String));
    expect(copy).toEqual(late);
    expect(await intake.drain()).toBe(2);
    expect(await intake.deliveries.getJobCounts("waiting")).toEqual({ waiting: 1 });
    expect((await intake.single(idOf(THREAD)))?.data.deduplicated).toBe(true);
  });
});
