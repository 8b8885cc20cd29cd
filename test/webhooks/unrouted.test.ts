import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { receiptBooks } from "../../src/intake/receipt-books.js";
import { silentLogger } from "../../src/log.js";
import { createMetrics, type Metrics } from "../../src/metrics.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { classifyDelivery } from "../../src/intake/classify-delivery.js";
import { DeliveryRecorder } from "../../src/intake/recorder.js";
import { DeliveryIngest } from "../../src/webhooks/ingest.js";
import { Spool, type SpooledDelivery } from "../../src/webhooks/spool.js";
import { UnroutedDeliveries, type UnroutedDeps, type WebhookIngest } from "../../src/webhooks/unrouted.js";
import { openIntake, type Intake } from "../helpers/intake.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { readMarker } from "../../src/intake/receipts.js";
import { webhookFixture } from "../helpers/webhook-fixtures.js";

const hash = (s: string) => createHash("sha256").update(s).digest("hex");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(o: Partial<UnroutedDeps> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "insight-relay-unrouted-"));
  dirs.push(dir);
  const routed: { body: string; at: string }[] = [];
  const dead: SpooledDelivery[] = [];
  const owner: WebhookIngest = {
    ingest: async (body, at) => {
      routed.push({ body, at: at?.toISOString() ?? "" });
      return { outcome: "recorded" };
    },
  };
  let redisUp = false;
  const u = new UnroutedDeliveries({
    dir,
    resolve: async (h) => {
      if (!redisUp) throw new Error("Redis unavailable");
      return h === hash("right-secret") ? owner : "unknown";
    },
    deadLetter: async (d) => void dead.push(d),
    logger: silentLogger,
    ...o,
  });
  return { u, dir, routed, dead, up: () => (redisUp = true) };
}

describe("deliveries kept unrouted while Redis is down", () => {
  it("keeps them while Redis cannot say, then routes the known secret's and dead-letters the other's", async () => {
    const { u, dir, routed, dead, up } = setup();
    const at = new Date("2026-01-02T03:04:05.000Z");
    expect(u.keep(hash("right-secret"), '{"n":1}', at).outcome).toBe("spooled");
    u.keep(hash("right-secret"), '{"n":2}', at);
    u.keep(hash("wrong-secret"), '{"n":3}', at);
    await u.replay();
    expect(routed).toEqual([]);
    expect(u.pending()).toBe(true);
    up();
    await u.replay();
    expect(routed).toEqual([
      { body: '{"n":1}', at: at.toISOString() },
      { body: '{"n":2}', at: at.toISOString() },
    ]);
    expect(dead.map((d) => d.body)).toEqual(['{"n":3}']);
    expect(u.pending()).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    u.close();
  });

  it("finds what a previous process kept", async () => {
    const first = setup();
    first.u.keep(hash("right-secret"), '{"n":1}');
    first.u.close();
    const { routed, up } = setup();
    const again = new UnroutedDeliveries({
      dir: first.dir,
      resolve: async () => ({
        ingest: async (body) => {
          routed.push({ body, at: "" });
          return { outcome: "recorded" };
        },
      }),
      deadLetter: async () => undefined,
      logger: silentLogger,
    });
    up();
    expect(again.pending()).toBe(true);
    await again.replay();
    expect(routed.map((r) => r.body)).toEqual(['{"n":1}']);
    again.close();
  });

  it("refuses past its bounds, since a wrong secret cannot be told from a right one meanwhile", async () => {
    const metrics = createMetrics();
    const { u } = setup({ maxSecrets: 2, maxBytes: 20, metrics });
    u.keep(hash("a"), "0123456789");
    u.keep(hash("b"), "01234");
    expect(() => u.keep(hash("c"), "0")).toThrow(/too many unchecked webhook secrets/);
    expect(() => u.keep(hash("a"), "0123456789")).toThrow(/full/);
    expect(() => u.keep("../../etc", "0")).toThrow(/not a secret hash/);
    // Counting acknowledgements is the route's (it answered them): keeping counts none.
    expect((await metrics.acks.get()).values).toEqual([]);
    u.close();
  });

  it("a routing cut short keeps what is left, in order, and routes all of it on the next replay", async () => {
    const routed: string[] = [];
    let fail = true;
    const { u, dir } = setup({
      resolve: async () => ({
        ingest: async (body) => {
          if (body === '{"n":2}' && fail) {
            fail = false;
            throw new Error("neither Redis nor the disk took it");
          }
          routed.push(body);
          return { outcome: "recorded" };
        },
      }),
    });
    for (const n of [1, 2, 3]) u.keep(hash("right-secret"), `{"n":${n}}`);
    await u.replay();
    expect(routed).toEqual(['{"n":1}']);
    expect(u.pending()).toBe(true);
    await u.replay();
    // The segment goes again whole: what went through already goes again too (the pump's
    // receipts drop it as a repeat, below), and nothing is lost or reordered.
    expect(routed).toEqual(['{"n":1}', '{"n":1}', '{"n":2}', '{"n":3}']);
    expect(u.pending()).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    u.close();
  });
});

const THREAD = webhookFixture("chatthread-created");
const MESSAGE = webhookFixture("chatmessage-created");
const idOf = (body: string) => classifyDelivery(body).deliveryId;

// Routed deliveries go through the workspace's ingest like any other: in the deployment's
// intake as received, at the time they were kept, stamped with the workspace; the intake pump
// records their receipts under its prefix.
describe("deliveries kept unrouted, routed into their workspace's intake", () => {
  const WS = "T0ALPHA";
  let prefix: string;
  let redis: Redis;
  let dir: string;
  let metrics: Metrics;
  let ws: DeliveryIngest;
  let intake: Intake;

  beforeEach(async () => {
    prefix = uniquePrefix("unrouted");
    redis = createRedis(testRedisUrl(), "command", silentLogger);
    if (redis.status !== "ready") await new Promise((ok) => redis.once("ready", ok));
    dir = mkdtempSync(join(tmpdir(), "insight-relay-unrouted-"));
    metrics = createMetrics();
    // As multi-workspace mode builds a workspace's ingest: the deployment's intake, its own spool.
    ws = new DeliveryIngest(
      new DeliveryRecorder(redis, { key: stateKeys(prefix).intake, workspaceId: WS }),
      new Spool(join(dir, "w", WS), silentLogger),
      silentLogger,
    );
    intake = openIntake({ redis, prefix, metrics });
  });
  afterEach(async () => {
    ws.close();
    await intake.close();
    redis.disconnect();
    await dropPrefix(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it("one kept twice in a millisecond, or routed twice by a routing cut short, is queued once; the workspace keeps its receipts", async () => {
    const at = new Date("2026-01-02T03:04:05.000Z");
    const later = new Date("2026-01-02T03:04:06.000Z");
    let fail = true;
    const u = new UnroutedDeliveries({
      dir: join(dir, "unrouted"),
      resolve: async (h) =>
        h === hash("right-secret")
          ? {
              ingest: async (body, when) => {
                if (body === MESSAGE && fail) {
                  fail = false;
                  throw new Error("neither Redis nor the disk took it");
                }
                return ws.ingest(body, when);
              },
            }
          : "unknown",
      deadLetter: async () => undefined,
      logger: silentLogger,
    });
    try {
      u.keep(hash("right-secret"), THREAD, at);
      u.keep(hash("right-secret"), THREAD, at); // sent twice at once while Redis was down
      u.keep(hash("right-secret"), MESSAGE, later);
      await u.replay(); // cut short at the message
      await u.replay();
      expect(u.pending()).toBe(false);
      const entries = await intake.entries();
      expect(entries.map((e) => e.kind === "received" && [e.body, e.receivedAt, e.workspaceId])).toEqual([
        [THREAD, at.toISOString(), WS],
        [THREAD, at.toISOString(), WS],
        [THREAD, at.toISOString(), WS],
        [THREAD, at.toISOString(), WS],
        [MESSAGE, later.toISOString(), WS],
      ]);
      // Each routing is a receipt of its own: the first sets the marker, the others are repeats.
      const receipts = entries.map((e) => e.kind === "received" && e.receipt);
      expect(new Set(receipts).size).toBe(5);
      expect(await intake.drain()).toBe(5);
      expect((await intake.waiting()).map((d) => [d.deliveryId, d.receivedAt])).toEqual([
        [idOf(THREAD), at.toISOString()],
        [idOf(MESSAGE), later.toISOString()],
      ]);
      expect(await deliveriesMetric(metrics, "chatthread-crud", "queued")).toBe(1);
      expect(await deliveriesMetric(metrics, "chatthread-crud", "duplicate")).toBe(3);
      const book = receiptBooks(redis, prefix)(WS);
      expect(await readMarker(redis, book.keys, idOf(THREAD))).toBe(
        `${at.toISOString()} ${receipts[0] || ""}`,
      );
      expect(await readMarker(redis, stateKeys(prefix), idOf(THREAD))).toBeNull();
      expect(await receiptBooks(redis, prefix)(undefined).health.deliveryCounts()).toEqual({});
    } finally {
      u.close();
    }
  });
});

/** insight_relay_webhook_deliveries_total for a type and outcome. */
async function deliveriesMetric(metrics: Metrics, type: string, outcome: string): Promise<number> {
  const { values } = await metrics.deliveries.get();
  return values.find((v) => v.labels.type === type && v.labels.outcome === outcome)?.value ?? 0;
}
