import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXTEND, UNCLAIM } from "../../src/alerts/evaluate.js";
import { AlertSettingsStore } from "../../src/alerts/settings-store.js";
import { PendingDigestStore } from "../../src/digest/pending-store.js";
import { entryVersion, type PendingEntry } from "../../src/domain/digest-batch.js";
import type { ThreadDigest } from "../../src/domain/thread-digest.js";
import { IntakePump } from "../../src/intake/pump.js";
import { receiptBooks } from "../../src/intake/receipt-books.js";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import { queueLayout } from "../../src/jobs/queue-layout.js";
import { silentLogger } from "../../src/log.js";
import { OpsNotifier } from "../../src/ops/ops-notifier.js";
import { BaselineStore } from "../../src/reconcile/baseline-store.js";
import { ChannelThrottle } from "../../src/slack/outbound/channel-throttle.js";
import { DeliveryHealthStore } from "../../src/store/delivery-health.js";
import { installKeys, stateKeys } from "../../src/store/keys.js";
import { tryLock } from "../../src/store/lock.js";
import { indexShard, MessageRefStore, PERIODS, periodOf } from "../../src/store/message-refs.js";
import { migrateCardRefs } from "../../src/store/migrate-card-refs.js";
import { PendingReplies } from "../../src/store/pending-replies.js";
import { createRedis, type RedisClient } from "../../src/store/redis.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { TriageStore } from "../../src/store/triage.js";
import { migrateThreadTriage } from "../../src/store/migrate-thread-triage.js";
import { classifyDelivery } from "../../src/intake/classify-delivery.js";
import { DeliveryRecorder } from "../../src/intake/recorder.js";
import { parseIntakeEntry } from "../../src/intake/entry.js";
import { RunGuard } from "../../src/weekly/run-guard.js";
import { Sealer } from "../../src/workspaces/encryption.js";
import { RedisInstallationStore } from "../../src/workspaces/installation-store.js";
import { teamInstall } from "../workspaces/fixtures.js";
import {
  clusterAvailable,
  seedsOf,
  startTestCluster,
  type LocalRedisCluster,
} from "../helpers/redis-cluster.js";
import { readMarker } from "../../src/intake/receipts.js";

/*
 * Every Lua script, MULTI and multi-key pipeline of the app, run through the stores that own
 * them against a real 3-master cluster with the app's cluster key names: none may answer
 * CROSSSLOT (a cross-slot MULTI is refused by ioredis or by Redis; both reject here).
 */

const digest = (threadId: string, title: string): ThreadDigest => ({
  threadId,
  groupId: "g1",
  groupName: "Support",
  communityId: "c1",
  title,
  summary: undefined,
  sentiment: "neutral",
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
const entry = (threadId: string, at: number, title: string): PendingEntry => ({
  digest: digest(threadId, title),
  version: entryVersion(at, true),
  isNew: true,
  firstSeenMs: at,
});

describe.runIf(clusterAvailable)("every script and transaction of the app on a Redis Cluster", () => {
  let c: LocalRedisCluster;
  let redis: RedisClient;
  let queues: Queues;
  const prefix = "scripts";
  const keys = stateKeys(prefix, { cluster: true });
  const errors: string[] = [];

  beforeAll(async () => {
    c = await startTestCluster();
    redis = createRedis({ url: "redis://127.0.0.1:6379", clusterNodes: seedsOf(c) }, "shared", silentLogger);
    queues = createQueues(redis, prefix, silentLogger, queueLayout(true));
  }, 60_000);
  afterAll(async () => {
    await queues?.close();
    redis?.disconnect();
    await c?.close();
  });

  /** Runs one step; a CROSSSLOT (or any error) is recorded and fails the test. */
  const step = async <T>(what: string, fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (err) {
      errors.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  };

  it("a cross-slot MULTI is refused here (what every step below must not meet)", async () => {
    await step("control", () => redis.multi().set("scripts:a", "1").set("scripts:b", "1").exec());
    expect(errors.splice(0)).toEqual([expect.stringMatching(/slot/i)]);
  });

  it("subscriptions (MULTI over the `sub` family)", async () => {
    const subs = new SubscriptionStore(redis, keys);
    const sub = {
      channelId: "C1",
      groupId: "g1",
      groupName: "Support",
      communityId: "c1",
      filters: {},
      createdBy: "U1",
      createdAt: "2026-11-20T10:00:00.000Z",
    };
    expect(await step("subscriptions.put", () => subs.put(sub))).toEqual({ created: true });
    expect(await step("subscriptions.forChannel", () => subs.forChannel("C1"))).toHaveLength(1);
    expect(await step("subscriptions.remove", () => subs.remove("C1", "g1"))).toBe(true);
    expect(await step("subscriptions.groups", () => subs.groups())).toEqual([]);
    expect(errors.splice(0)).toEqual([]);
  });

  const raw = readFileSync("test/fixtures/webhooks/chatthread-created.json", "utf8");
  const deliveryId = classifyDelivery(raw).deliveryId;

  it("the intake (RPUSH, a batch at once) and message activity (pipeline)", async () => {
    const health = new DeliveryHealthStore(redis, keys);
    const recorder = new DeliveryRecorder(redis, { key: keys.intake }, 5_000);
    const at = new Date("2026-11-20T10:00:00.000Z");
    await step("recorder.record", () =>
      Promise.all([
        recorder.record(raw, at, "receipt-1"),
        recorder.record('{"not":"a webhook"}', at, "receipt-2"),
        recorder.record(raw, new Date("2026-11-20T10:05:00.000Z"), "receipt-3"), // a repeat
        recorder.record(raw, at, "receipt-1"), // the spooled copy of the first receipt
      ]),
    );
    const intake = ((await step("intake", () => redis.lrange(keys.intake, 0, -1))) ?? []).map(
      parseIntakeEntry,
    );
    expect(intake.map((e) => e?.kind === "received" && e.receipt)).toEqual([
      "receipt-1",
      "receipt-2",
      "receipt-3",
      "receipt-1",
    ]);
    await step("health.recordMessage", () => health.recordMessage("g1", "m1", new Date().toISOString()));
    await step("health.recordMessage", () => health.recordMessage("g1", "m2", new Date().toISOString()));
    const today = new Date().toISOString().slice(0, 10);
    expect(
      await step("health.activity (pipeline)", () => health.activity("g1", [today, "2026-01-01"])),
    ).toEqual({
      [today]: 2,
      "2026-01-01": 0,
    });
    expect(errors.splice(0)).toEqual([]);
  });

  it("the intake pump (its TAKE and receipts scripts over the `health` family, dead letters by MULTI) into the sharded deliveries queue", async () => {
    const pumpOnCluster = (o: { batch?: number } = {}) =>
      new IntakePump({
        redis,
        blocking: createRedis(
          { url: "redis://127.0.0.1:6379", clusterNodes: seedsOf(c) },
          "blocking",
          silentLogger,
        ),
        keys,
        deliveriesFor: () => queues.deliveries,
        receiptsFor: receiptBooks(redis, prefix),
        logger: silentLogger,
        ...o,
      });
    const pump = pumpOnCluster({ batch: 2 });
    try {
      // The recorder's four entries (above), two batches: the step that takes the second
      // drops the first, and the step that finds nothing more drops the second.
      expect(await step("pump.drain", () => pump.drain())).toBe(4);
      // A second pump is not the leader while the first holds the lease.
      const rival = pumpOnCluster();
      expect(await step("rival.drain", () => rival.drain())).toBeUndefined();
      await step("rival.close", () => rival.close());
    } finally {
      await step("pump.close (RELEASE)", () => pump.close());
    }
    expect(await redis.llen(keys.intake)).toBe(0);
    expect(await redis.llen(keys.intakeMoving)).toBe(0);
    expect(await redis.exists(keys.intakeLease)).toBe(0);
    const job = await queues.deliveries.getJob(deliveryId);
    expect(job?.data).toMatchObject({ deliveryId, deduplicated: true });
    // Four shards on the cluster (`{deliveries-N}`); the repeat went no further, and the job id
    // keeps the first receipt and its spooled copy one job.
    expect(queues.deliveries.shards()).toHaveLength(4);
    expect(await queues.deliveries.getJobCounts("waiting")).toEqual({ waiting: 1 });
    const health = new DeliveryHealthStore(redis, keys);
    expect(await readMarker(redis, keys, deliveryId)).toBe("2026-11-20T10:00:00.000Z receipt-1");
    expect(await health.deliveryCounts()).toEqual({ "chatthread-crud": 2, invalid: 1 });
    expect((await health.deadLetterCounts()).total).toBe(1);
    expect(errors.splice(0)).toEqual([]);
  });

  it("message refs and posting markers, locks, the channel throttle", async () => {
    const refs = new MessageRefStore(redis, keys);
    const ref = { ts: "1.0001", enrichedAtMs: 1_000, hasSentiment: true, groupId: "g1" };
    expect(await step("refs.setIfNewer", () => refs.setIfNewer("C1", "t1", ref))).toBe(true);
    expect(
      await step("refs.setCard", () =>
        refs.setCard("C1", "t1", "1.0001", { digest: digest("t1", "T"), change: [], noLongerMatches: false }),
      ),
    ).toBe(true);
    const marked = new Date();
    await step("refs.markPosting", () => refs.markPosting("C1", "t1", marked));
    await step("refs.unmarkPosting", () => refs.unmarkPosting("C1", "t1", marked));
    expect(await step("refs.postingSince", () => refs.postingSince("C1", "t1"))).toBeUndefined();
    await step("refs.markPosting", () => refs.markPosting("C1", "t1", marked));
    expect(await step("refs.postingSince", () => refs.postingSince("C1", "t1"))).toBeTypeOf("number");
    // The compare-and-set clears the mark in the same script (the channel's slot).
    expect(
      await step("refs.setIfNewer again", () => refs.setIfNewer("C1", "t1", { ...ref, enrichedAtMs: 2_000 })),
    ).toBe(true);
    expect(await step("refs.postingSince", () => refs.postingSince("C1", "t1"))).toBeUndefined();
    expect((await step("refs.get", () => refs.get("C1", "t1")))?.card?.digest.title).toBe("T");
    await step("refs.noteChannel", () => refs.noteChannel("C2", "t1", new Date(2_000)));
    await step("refs.noteChannel", () => refs.noteChannel("C1", "t1", new Date(1_000)));
    expect(await step("refs.channelsOf", () => refs.channelsOf("t1"))).toEqual(["C1", "C2"]);
    const release = await step("tryLock", () => tryLock(redis, keys.lock("digest:C1:t1"), 5_000));
    expect(release).toBeTypeOf("function");
    await step("lock release", async () => release?.());
    const throttle = new ChannelThrottle(redis, keys, 1_000);
    const now = Date.now();
    expect(await step("throttle.reserve", () => throttle.reserve("C1", now))).toBe(now);
    expect(await step("throttle.reserve", () => throttle.reserve("C1", now))).toBe(now + 1_000);
    await step("throttle.pushBack", () => throttle.pushBack("C1", now + 10_000, now));
    expect(errors.splice(0)).toEqual([]);
  });

  it("every multi-key script's keys of card refs, the thread index and the dedupe markers share a slot", async () => {
    const slot = async (k: string) => Number(await redis.call("CLUSTER", "KEYSLOT", k));
    const p = periodOf(Date.now());
    const families = [
      // SET_IF_NEWER, SET_CARD, LOOKUP: the channel's periods and its posting marks.
      [
        ...Array.from({ length: PERIODS }, (_, i) => keys.refs("C1", p - i)),
        keys.posting("C1", "t1"),
        keys.posting("C1", "t2"),
      ],
      // NOTE_CHANNELS: one shard's periods.
      Array.from({ length: PERIODS }, (_, i) => keys.cardIndex(indexShard("t1"), p - i)),
      // RECORD_RECEIPTS, MARK_KEPT, READ_MARKER: the health hashes, any delivery's buckets, the old markers.
      [
        keys.lastDelivery,
        keys.deliveryCounts,
        keys.lastThreadDeliveryByCommunity,
        keys.intake,
        ...["0", "31", "63"].flatMap((shard) =>
          Array.from({ length: 8 }, (_, i) => keys.dedupeDay(20_000 - i, shard)),
        ),
        keys.dedupe(deliveryId),
      ],
    ];
    for (const family of families) expect(new Set(await Promise.all(family.map(slot))).size).toBe(1);
    // Channels and index shards spread over the masters.
    const spread = await Promise.all([
      ...["C1", "C2", "C3", "C4", "C5", "C6"].map((c) => slot(keys.refs(c, p))),
      ...[0, 1, 2, 3, 4, 5].map((n) => slot(keys.cardIndex(n, p))),
    ]);
    expect(new Set(spread).size).toBeGreaterThan(6);
  });

  it("card refs of the layout before are read, edited and migrated on the cluster", async () => {
    const refs = new MessageRefStore(redis, keys);
    const old = keys.messageRef("C7", "t7");
    await redis.hset(
      old,
      "version",
      "2001",
      "ts",
      "7.0001",
      "enrichedAtMs",
      "1000",
      "hasSentiment",
      "1",
      "groupId",
      "g1",
    );
    await redis.hset(keys.messageRef("C8", "t8"), "ts", "8.0001", "groupId", "g1");
    await redis.zadd(keys.threadCards("t7"), 5, "C7");
    await redis.set(keys.legacyPosting("C9", "t9"), "123");
    expect(await step("refs.get (old)", () => refs.get("C7", "t7"))).toMatchObject({
      ts: "7.0001",
      hasSentiment: true,
    });
    expect(await step("refs.postingSince (old)", () => refs.postingSince("C9", "t9"))).toBe(123);
    expect(
      await step("refs.setCard (old)", () =>
        refs.setCard("C7", "t7", "7.0001", {
          digest: digest("t7", "Seven"),
          change: [],
          noLongerMatches: false,
        }),
      ),
    ).toBe(true);
    expect(await redis.exists(old)).toBe(0);
    expect(await step("refs.channelsOf (old)", () => refs.channelsOf("t7"))).toEqual(["C7"]);
    const legacy = { mayRemain: true };
    const result = await step("migrateCardRefs", () => migrateCardRefs(redis, prefix, silentLogger, legacy));
    expect(result).toMatchObject({ ran: true, counts: { refs: 1, indexes: 1 } });
    expect(legacy.mayRemain).toBe(false);
    const after = new MessageRefStore(redis, keys, { legacy });
    expect((await after.get("C7", "t7"))?.card?.digest.title).toBe("Seven");
    expect(await after.get("C8", "t8")).toMatchObject({ ts: "8.0001" });
    expect(await after.channelsOf("t7")).toEqual(["C7"]);
    expect(errors.splice(0)).toEqual([]);
  });

  it("the weekly and digest run guard, pending digests, pending replies", async () => {
    for (const key of [keys.weeklyRun("C1", "2026-W47"), keys.digestRun("C1", "2026-11-20T09")]) {
      const guard = new RunGuard(redis, key, "job-1");
      expect(await step("runGuard.claim", () => guard.claim())).toBe("claimed");
      expect(await step("runGuard.markPart", () => guard.markPart("g1", "1.0002"))).toBe(true);
      await step("runGuard.finish (MULTI)", () => guard.finish());
      expect(await step("runGuard.claim again", () => new RunGuard(redis, key, "job-2").claim())).toBe(
        "done",
      );
    }
    const pending = new PendingDigestStore(redis, keys);
    const e = entry("t1", 1_000, "First");
    expect(await step("pending.add", () => pending.add("C1", e))).toBe(true);
    const listed = (await step("pending.list", () => pending.list("C1"))) ?? [];
    expect(listed).toHaveLength(1);
    expect(await step("pending.removeShown", () => pending.removeShown("C1", listed))).toBe(1);
    const replies = new PendingReplies(redis, keys);
    await step("replies.push (script)", () =>
      replies.push("C1", "t1", { messageId: "m1", author: "a", text: "hi", at: "2026-11-20T10:00:00Z" }),
    );
    expect((await replies.peek("C1", "t1", 10)).taken).toBe(1);
    expect(errors.splice(0)).toEqual([]);
  });

  it("triage scripts, alerts' fire-once keys, ops alerts", async () => {
    const triage = new TriageStore(redis, keys);
    const at = new Date();
    expect(
      await step("triage.setHandled", () => triage.setHandled("t1", true, "U1", at, { channelId: "C1" })),
    ).toBe(true);
    expect(await step("triage.reopen", () => triage.setHandled("t1", false, "U1", at))).toBe(true);
    expect(await step("triage.assign", () => triage.assign("t1", "U2", "U1", at))).toBe(true);
    expect(await step("triage.toggleFollow", () => triage.toggleFollow("t1", "U2"))).toBe("followed");
    expect((await triage.get("t1")).assignee?.user).toBe("U2");
    const fired = keys.alertFired("C1", "negative:g1");
    expect(await redis.set(fired, "claimed:o1", "PX", 60_000, "NX")).toBe("OK");
    expect(await step("alerts UNCLAIM", () => UNCLAIM.run(redis, 1, fired, "claimed:o1"))).toBe(1);
    await redis.set(fired, "posted", "PX", 60_000);
    expect(await step("alerts EXTEND", () => EXTEND.run(redis, 1, fired, 120_000))).toBe(1);
    const alerts = new AlertSettingsStore(redis, keys);
    await step("alertSettings.put", () =>
      alerts.put("C1", {
        groupId: "g1",
        groupName: "Support",
        negativeSpike: true,
        volumeSpike: false,
        setBy: "U1",
        setAt: at.toISOString(),
      }),
    );
    expect(await step("alertSettings.all", () => alerts.all())).toHaveLength(1);
    const ops = new OpsNotifier(redis, keys, () => queues.slack, "COPS", silentLogger);
    expect(await step("ops.alert", () => ops.alert("cluster-test", "a test incident"))).toBe(true);
    expect(await step("ops.resolve", () => ops.resolve("cluster-test", "resolved"))).toBe(true);
    expect(errors.splice(0)).toEqual([]);
  });

  it("the triage migration (SCAN on every master, one-key scripts) folds old keys spread over the masters", async () => {
    const s = `${prefix}:state`;
    // Old per-channel keys of many threads land in every master's slots.
    for (let i = 0; i < 12; i++) {
      await redis.hset(`${s}:triage:C${i % 3}:old${i}`, "handledBy", "U1", "handledAt", String(1_000 + i));
      await redis.sadd(`${s}:followers:C${i % 3}:old${i}`, "U2");
      await redis.hset(keys.messageRef(`C${i % 3}`, `old${i}`), "ts", `1.${i}`, "groupId", "g1");
    }
    const result = await step("migrateThreadTriage", () => migrateThreadTriage(redis, prefix, silentLogger));
    expect(result).toMatchObject({ ran: true, counts: { triage: 12, followers: 12 } });
    const triage = new TriageStore(redis, keys);
    const refs = new MessageRefStore(redis, keys);
    for (let i = 0; i < 12; i++) {
      expect((await triage.get(`old${i}`)).handled?.by).toBe("U1");
      expect(await triage.followersOf(`old${i}`)).toEqual(["U2"]);
      expect(await refs.channelsOf(`old${i}`)).toEqual([`C${i % 3}`]);
    }
    expect(errors.splice(0)).toEqual([]);
  });

  it("reconcile baselines (MULTI over the `reconcile` family)", async () => {
    const baselines = new BaselineStore(redis, keys, 1);
    const all = new Map([
      ["t1", { f: "a", seen: 1 }],
      ["t2", { f: "b", seen: 2 }],
    ]);
    await step("baseline.save (MULTI, trimming)", () =>
      baselines.save("g1", { startedAt: 1, readAt: 2 }, all, ["t1", "t2"], new Set(["t2"])),
    );
    const loaded = await step("baseline.load", () => baselines.load("g1"));
    expect([...(loaded?.entries.keys() ?? [])]).toEqual(["t2"]);
    expect(await step("baseline.groups", () => baselines.groups())).toEqual(["g1"]);
    await step("baseline.drop (MULTI)", () => baselines.drop("g1"));
    expect(await baselines.groups()).toEqual([]);
    expect(errors.splice(0)).toEqual([]);
  });

  it("the installation store (MULTI over the `install` family)", async () => {
    const store = new RedisInstallationStore(
      redis,
      installKeys(prefix, { cluster: true }),
      new Sealer(Buffer.alloc(32, 1)),
    );
    await step("installations.store (MULTI)", () =>
      store.storeInstallation(teamInstall("T1", "xoxb-T1-secret")),
    );
    expect((await step("installations.list", () => store.list()))?.map((w) => w.id)).toEqual(["T1"]);
    await step("installations.delete (MULTI)", () =>
      store.deleteInstallation({ teamId: "T1", isEnterpriseInstall: false, enterpriseId: undefined }),
    );
    expect(await store.has("T1")).toBe(false);
    expect(errors.splice(0)).toEqual([]);
  });

  it("the same keys spread over more than one master", async () => {
    const names = [keys.subscribedGroups, keys.lastDelivery, keys.deadLetters, keys.reconcileBaseline("g1")];
    const slots = await Promise.all(
      names.map(async (k) => Number(await redis.call("CLUSTER", "KEYSLOT", k))),
    );
    expect(new Set(slots).size).toBe(names.length);
  });
});
