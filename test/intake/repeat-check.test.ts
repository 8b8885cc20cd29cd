import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Redis } from "ioredis";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processDelivery, type ProcessDeliveryDeps } from "../../src/jobs/process-delivery.js";
import type { DeliveryJob } from "../../src/jobs/job-types.js";
import { silentLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { MessageRefStore } from "../../src/store/message-refs.js";
import { PendingReplies } from "../../src/store/pending-replies.js";
import { createRedis } from "../../src/store/redis.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { classifyDelivery } from "../../src/intake/classify-delivery.js";
import { createReceiver } from "../../src/webhooks/create-receiver.js";
import { readMarker, repeatCheck } from "../../src/intake/receipts.js";
import { Spool } from "../../src/webhooks/spool.js";
import { openIntake, type Intake } from "../helpers/intake.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/webhooks/${name}.json`, import.meta.url), "utf8");
const THREAD = fixture("chatthread-created");
const MESSAGE = fixture("chatmessage-created");

const notUsed = (what: string) => (): never => {
  throw new Error(`${what} is not used by a chatmessage-crud delivery without subscriptions`);
};

// The intake pump records each receipt (the 7-day de-duplication marker) and queues only a first
// receipt (or a copy of that same receipt), so a repeat never becomes a job. Jobs queued by an
// older version (without `deduplicated`) were enqueued without waiting for the marker: their
// first step asks `repeatCheck`, and drops a repeat.
describe("repeats: dropped by the intake pump, and by the first step of jobs queued before it", () => {
  let prefix: string;
  let redis: Redis;
  let spoolDir: string;
  let r: ReturnType<typeof createReceiver>;
  let intake: Intake;

  beforeEach(async () => {
    prefix = uniquePrefix("repeat");
    redis = createRedis(testRedisUrl(), "command", silentLogger);
    if (redis.status !== "ready") await new Promise((ok) => redis.once("ready", ok));
    spoolDir = mkdtempSync(join(tmpdir(), "repeat-spool-"));
    r = createReceiver({
      redis,
      prefix,
      spool: new Spool(spoolDir, silentLogger),
      logger: silentLogger,
      metrics: createMetrics(),
    });
    intake = openIntake({ redis, prefix });
  });
  afterEach(async () => {
    r.ingest.close();
    await intake.close();
    redis.disconnect();
    await dropPrefix(prefix);
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it("a repeat after its first job was removed is queued no more; repeatCheck calls it a repeat", async () => {
    const isRepeat = repeatCheck(redis, r.keys);
    const first = { deliveryId: classifyDelivery(THREAD).deliveryId };
    await r.ingest.ingest(THREAD, new Date("2026-11-20T10:00:00.000Z"));
    expect(await intake.drain()).toBe(1);
    const job = await intake.single(first.deliveryId);
    expect(job?.data.receivedAt).toBe("2026-11-20T10:00:00.000Z");
    expect(job?.data.deduplicated).toBe(true);
    // The first receipt goes ahead, on its first attempt and on any retry.
    expect(await isRepeat(first.deliveryId, "2026-11-20T10:00:00.000Z")).toBe(false);

    await job?.remove(); // completed long ago and removed (removeOnComplete)
    const again = await r.ingest.ingest(THREAD, new Date("2026-11-21T09:00:00.000Z"));
    expect(again.outcome).toBe("recorded");
    expect(await intake.drain()).toBe(1);
    expect(await intake.single(first.deliveryId)).toBeUndefined();
    expect(await intake.waiting()).toEqual([]);
    // The repeat left the marker to the first receipt (its time, then its id).
    expect((await readMarker(redis, r.keys, first.deliveryId))?.split(" ")[0]).toBe(
      "2026-11-20T10:00:00.000Z",
    );
    // A job an older version queued for this repeat is told so by its first step.
    expect(await isRepeat(first.deliveryId, "2026-11-21T09:00:00.000Z")).toBe(true);
  });

  it("a delivery never marked (marker expired after 7 days) is not a repeat", async () => {
    const isRepeat = repeatCheck(redis, r.keys);
    expect(await isRepeat("never-seen", "2026-11-20T10:00:00.000Z")).toBe(false);
  });

  it("reads a marker an older receiver wrote (the receipt time alone) as it reads the pump's", async () => {
    const isRepeat = repeatCheck(redis, r.keys);
    // Written before the pump recorded receipts: jobs of that time still ask about them.
    await redis.set(r.keys.dedupe("older"), "2026-11-20T10:00:00.000Z", "EX", 60);
    expect(await isRepeat("older", "2026-11-20T10:00:00.000Z")).toBe(false);
    expect(await isRepeat("older", "2026-11-21T09:00:00.000Z")).toBe(true);
    // The pump's: the receipt id after the time is not part of what a job carries.
    await redis.set(r.keys.dedupe("newer"), "2026-11-20T10:00:00.000Z k3x9a", "EX", 60);
    expect(await isRepeat("newer", "2026-11-20T10:00:00.000Z")).toBe(false);
    expect(await isRepeat("newer", "2026-11-20T10:00:00.001Z")).toBe(true);
  });

  it("processDelivery asks repeatCheck only for a job without `deduplicated` (queued by an older version)", async () => {
    const check = repeatCheck(redis, r.keys);
    const asked: string[] = [];
    const subscriptions = new SubscriptionStore(redis, r.keys);
    const refs = new MessageRefStore(redis, r.keys);
    const deps: ProcessDeliveryDeps = {
      subscriptions,
      refs,
      lookup: { find: notUsed("lookup") },
      slackQueue: notUsed("slackQueue"),
      refreshQueue: notUsed("refreshQueue"),
      ops: { insightAuthorized: notUsed("ops"), insightUnauthorized: notUsed("ops") },
      logger: silentLogger,
      health: r.health,
      isRepeat: async (deliveryId, receivedAt) => {
        asked.push(`${deliveryId} ${receivedAt}`);
        return check(deliveryId, receivedAt);
      },
      messages: {
        subscriptions,
        refs,
        replies: new PendingReplies(redis, r.keys),
        slackQueue: notUsed("slackQueue"),
      },
    };
    const firstAt = "2026-11-20T10:00:00.000Z";
    const laterAt = "2026-11-21T09:00:00.000Z";
    const first = { deliveryId: classifyDelivery(MESSAGE).deliveryId };
    await r.ingest.ingest(MESSAGE, new Date(firstAt));
    await r.ingest.ingest(MESSAGE, new Date(laterAt));
    expect(await intake.drain()).toBe(2);
    expect(await intake.waiting()).toHaveLength(1);
    const groupId = "65f1c0a2e4b0a1d2c3b4a017";
    const counted = { kind: "message", groupId, cards: { counts: 0, replies: 0 } };

    // Queued by the intake pump: the marker was checked there, so the step does not ask.
    const job = await intake.single(first.deliveryId);
    expect(job?.data.deduplicated).toBe(true);
    if (!job) throw new Error("no job");
    expect(await processDelivery(job.data, deps)).toEqual(counted);
    expect(asked).toEqual([]);
    await job.remove();

    // An older version's jobs (no `deduplicated`): the repeat's is dropped, the first receipt's goes ahead.
    const old: DeliveryJob = { deliveryId: job.data.deliveryId, receivedAt: firstAt, event: job.data.event };
    const oldJob = async (data: DeliveryJob) => {
      const added = await intake.deliveries.add(data.event.webhookType, data, { jobId: data.deliveryId });
      await added.remove();
      return { data };
    };
    expect(await processDelivery((await oldJob({ ...old, receivedAt: laterAt })).data, deps)).toEqual({
      kind: "repeat",
    });
    expect(await processDelivery((await oldJob({ ...old, receivedAt: firstAt })).data, deps)).toEqual(
      counted,
    );
    expect(asked).toEqual([`${first.deliveryId} ${laterAt}`, `${first.deliveryId} ${firstAt}`]);
  });
});
