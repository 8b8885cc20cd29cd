import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PendingDigestStore } from "../../src/digest/pending-store.js";
import { DigestSchedules, digestSchedulerId } from "../../src/digest/schedules.js";
import { syncChannelDigest } from "../../src/digest/sync-channel-digest.js";
import { entryVersion, type PendingEntry } from "../../src/domain/digest-batch.js";
import type { Delivery } from "../../src/domain/subscription.js";
import type { ThreadDigest } from "../../src/domain/thread-digest.js";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const CH = "C0SYNC";

const entry = (groupId: string, threadId: string): PendingEntry => ({
  digest: {
    threadId,
    groupId,
    groupName: groupId,
    communityId: "c1",
    title: `Thread ${threadId}`,
    summary: undefined,
    sentiment: "neutral",
    keywords: [],
    messageCount: 2,
    participantCount: 2,
    isQuestionLed: false,
    questionResponseStatus: undefined,
    firstMessageDate: undefined,
    lastMessageDate: undefined,
    enrichedAt: "2026-11-20T10:00:00.000Z",
    action: "created",
  } satisfies ThreadDigest,
  version: entryVersion(1_000, true),
  isNew: true,
  firstSeenMs: 1_000,
});

// The subscription store, the pending hash and BullMQ's job schedulers, all real.
describe("syncChannelDigest (real Redis, real BullMQ schedulers)", () => {
  let redis: Redis;
  let prefix: string;
  let keys: StateKeys;
  let queues: Queues;
  let subscriptions: SubscriptionStore;
  let pending: PendingDigestStore;
  let schedules: DigestSchedules;
  const sync = (groupId: string) => syncChannelDigest({ subscriptions, pending, schedules }, CH, groupId);
  const follow = (groupId: string, delivery: Partial<Delivery>, paused = false) =>
    subscriptions.put({
      channelId: CH,
      groupId,
      groupName: groupId,
      communityId: "c1",
      filters: {},
      createdBy: "U0TEST",
      createdAt: "2026-11-20T09:00:00.000Z",
      delivery,
      ...(paused ? { paused: { code: "not_in_channel", at: "2026-11-20T09:30:00.000Z" } } : {}),
    });
  const schedulerIds = async () => (await queues.digest.getJobSchedulers(0, -1)).map((j) => j.key).sort();
  const pendingGroups = async () =>
    [...new Set((await pending.list(CH)).map((e) => e.digest.groupId))].sort();

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("dsync");
    keys = stateKeys(prefix);
    queues = createQueues(redis, prefix);
    subscriptions = new SubscriptionStore(redis, keys);
    pending = new PendingDigestStore(redis, keys);
    schedules = new DigestSchedules({
      queue: () => queues.digest,
      redis,
      keys,
      timeZoneOf: async () => "Europe/Berlin",
      subscriptions,
    });
  });
  afterEach(async () => {
    await queues.close();
    await dropPrefix(prefix);
  });

  it("unsubscribing drops that group's pending threads and, with no digest left, the channel's schedule", async () => {
    await follow("g1", { mode: "digest", every: "4h" });
    await follow("g2", { mode: "realtime" });
    await pending.add(CH, entry("g1", "t1"));
    await pending.add(CH, entry("g1", "t2"));
    await schedules.ensure(CH, "4h");
    expect(await schedulerIds()).toEqual([digestSchedulerId(CH, "4h")]);

    await subscriptions.remove(CH, "g1");
    await sync("g1");
    expect(await pending.list(CH)).toEqual([]);
    expect(await schedulerIds()).toEqual([]);
    expect(await redis.hgetall(keys.digestScheduled(CH))).toEqual({});
  });

  it("another group's pending threads and its period stay; a period only the removed group used goes", async () => {
    await follow("g1", { mode: "digest", every: "4h" });
    await follow("g2", { mode: "digest", every: "24h" });
    await pending.add(CH, entry("g1", "t1"));
    await pending.add(CH, entry("g2", "t9"));
    await schedules.ensure(CH, "4h");
    await schedules.ensure(CH, "24h");

    await subscriptions.remove(CH, "g1");
    await sync("g1");
    expect(await pendingGroups()).toEqual(["g2"]);
    expect(await schedulerIds()).toEqual([digestSchedulerId(CH, "24h")]);
    const [kept] = await queues.digest.getJobSchedulers(0, -1);
    expect(kept).toMatchObject({ pattern: "0 9 * * *", tz: "Europe/Berlin" });
  });

  it("leaving digest mode drops the group's pending threads; a new period gets its schedule at once", async () => {
    await follow("g1", { mode: "digest", every: "4h" });
    await pending.add(CH, entry("g1", "t1"));
    await schedules.ensure(CH, "4h");

    await follow("g1", { mode: "digest", every: "8h" });
    await sync("g1");
    // The same group in digest mode at another period: its threads wait for the new period.
    expect(await pendingGroups()).toEqual(["g1"]);
    expect(await schedulerIds()).toEqual([digestSchedulerId(CH, "8h")]);

    await follow("g1", { mode: "realtime" });
    await sync("g1");
    expect(await pending.list(CH)).toEqual([]);
    expect(await schedulerIds()).toEqual([]);
  });

  it("a paused subscription keeps its pending threads without a schedule; resumed, it gets the schedule back", async () => {
    await follow("g1", { mode: "digest", every: "12h" }, true);
    await pending.add(CH, entry("g1", "t1"));
    await sync("g1");
    expect(await pendingGroups()).toEqual(["g1"]);
    expect(await schedulerIds()).toEqual([]);

    await subscriptions.resume(CH, "g1");
    await sync("g1");
    expect(await schedulerIds()).toEqual([digestSchedulerId(CH, "12h")]);
  });
});
