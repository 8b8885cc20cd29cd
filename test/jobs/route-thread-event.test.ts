import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  SEED,
  startEmulator,
  threadEvent,
  type Emulator,
  type EmulatedThread,
} from "../../dev/emulator/index.js";
import { InsightClient } from "../../src/insight/client.js";
import { threadEventSchema, type ThreadEvent } from "../../src/insight/schemas.js";
import type { SubscriptionFilters } from "../../src/domain/filters.js";
import { OpsNotifier } from "../../src/ops/ops-notifier.js";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import { routeThreadEvent, type RouteDeps } from "../../src/jobs/route-thread-event.js";
import { ThreadLookup } from "../../src/jobs/thread-lookup.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { MessageRefStore } from "../../src/store/message-refs.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { BelowThresholdStore } from "../../src/store/below-threshold.js";
import { WatchStore } from "../../src/store/watches.js";
import { WatchDmRefs } from "../../src/store/watch-dms.js";
import { WatchPendingStore } from "../../src/store/watch-pending.js";
import { buildThreadDigest } from "../../src/domain/thread-digest.js";
import { gatherJobId } from "../../src/watches/watch-deliveries.js";

const GROUP = SEED.groups.support;
const OPS = "C0OPS";
const DELAYS = [30_000, 120_000];

describe("routeThreadEvent", () => {
  let emulator: Emulator;
  let client: InsightClient;
  let redis: Redis;
  let prefix: string;
  let queues: Queues;
  let subscriptions: SubscriptionStore;
  let ops: OpsNotifier;
  let deps: RouteDeps & { lookup: ThreadLookup; refs: MessageRefStore };

  beforeAll(async () => {
    emulator = await startEmulator();
    client = new InsightClient({
      baseUrl: emulator.baseUrl,
      apiKey: emulator.apiKey,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
    });
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("route");
    const keys = stateKeys(prefix);
    queues = createQueues(redis, prefix);
    subscriptions = new SubscriptionStore(redis, keys);
    ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger);
    deps = {
      subscriptions,
      refs: new MessageRefStore(redis, keys),
      lookup: new ThreadLookup(client),
      slackQueue: () => queues.slack,
      refreshQueue: () => queues.refresh,
      ops,
      logger: silentLogger,
      refreshDelaysMs: DELAYS,
      // What happens once the first post's short wait for the listing is over (its own tests below).
      firstPostWaitsMs: [],
    };
    emulator.faults.clear();
    emulator.requests.clear();
  });
  afterEach(async () => {
    await queues.close();
    await dropPrefix(prefix);
  });

  /** A freshly enriched thread in the emulator and the chatthread-crud event announcing it. */
  function enriched(partial: Partial<EmulatedThread> = {}): { thread: EmulatedThread; event: ThreadEvent } {
    const thread = emulator.store.addThread(GROUP, partial);
    const group = emulator.store.group(GROUP);
    if (!group) throw new Error("seed group missing");
    const envelope = threadEvent("created", group, thread, new Date());
    return { thread, event: threadEventSchema.parse(envelope) };
  }

  const follow = (channelId: string, filters: SubscriptionFilters = {}, paused = false) =>
    subscriptions.put({
      channelId,
      groupId: GROUP,
      groupName: "Lumen DB Support",
      communityId: SEED.communities.primary,
      filters,
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
      ...(paused ? { paused: { code: "is_archived", at: new Date().toISOString() } } : {}),
    });

  const slackJobs = async () => queues.slack.getJobs(["waiting", "delayed"], 0, -1, true);
  const refreshJobs = async () => queues.refresh.getJobs(["waiting", "delayed"], 0, -1, true);

  it("no subscribers -> no jobs, and the listing is not even read", async () => {
    const { event } = enriched({ sentiment: "negative" });
    expect(await routeThreadEvent(event, deps)).toEqual({
      channels: 0,
      filteredOut: 0,
      sentimentKnown: false,
    });
    expect(await slackJobs()).toEqual([]);
    expect(await refreshJobs()).toEqual([]);
    expect(emulator.requests.count()).toBe(0);
  });

  it("one digest job per subscribed channel, carrying the listing's sentiment and keywords", async () => {
    await follow("C1");
    await follow("C2");
    const { thread, event } = enriched({ sentiment: "negative", keywords: ["replication", "upgrade"] });
    const res = await routeThreadEvent(event, deps);
    expect(res).toEqual({ channels: 2, filteredOut: 0, sentimentKnown: true });
    const jobs = await slackJobs();
    expect(jobs.map((j) => j.data.channelId).sort()).toEqual(["C1", "C2"]);
    for (const j of jobs) {
      if (j.data.kind !== "digest") throw new Error("expected digest jobs");
      expect(j.data.digest).toMatchObject({
        threadId: thread.id,
        groupId: GROUP,
        title: thread.title,
        sentiment: "negative",
        keywords: ["replication", "upgrade"],
        messageCount: thread.messageCount,
      });
      expect(j.data.enrichedAtMs).toBe(Date.parse(event.payload.timestamp));
    }
    // The sentiment is known: no later look is scheduled.
    expect(await refreshJobs()).toEqual([]);
  });

  it("rule 10: a channel the thread no longer matches gets its card edited, only if it has one", async () => {
    await follow("C0NEG", { sentiments: ["negative"] });
    await follow("C0NEVER", { sentiments: ["negative"] });
    const { thread, event } = enriched({ sentiment: "positive" });
    await deps.refs.setIfNewer("C0NEG", thread.id, {
      ts: "1.000100",
      enrichedAtMs: 1,
      hasSentiment: true,
      groupId: GROUP,
    });
    const res = await routeThreadEvent(event, deps);
    expect(res).toMatchObject({ channels: 1, filteredOut: 2, noLongerMatching: 1 });
    const jobs = await slackJobs();
    expect(jobs.map((j) => j.data.channelId)).toEqual(["C0NEG"]);
    expect(jobs[0]?.data).toMatchObject({ kind: "digest", noLongerMatches: true });
  });

  it("digest and summary modes get no realtime card", async () => {
    await subscriptions.put({
      channelId: "C0DIGEST",
      groupId: GROUP,
      groupName: "Lumen DB Support",
      communityId: SEED.communities.primary,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
      delivery: { mode: "digest" },
    });
    const { event } = enriched({ sentiment: "positive" });
    expect((await routeThreadEvent(event, deps)).channels).toBe(0);
    expect(await slackJobs()).toEqual([]);
  });

  it("the same event routed twice makes no second job (job ids per rendering)", async () => {
    await follow("C1");
    const { event } = enriched({ sentiment: "positive" });
    await routeThreadEvent(event, deps);
    await routeThreadEvent(event, deps);
    expect(await slackJobs()).toHaveLength(1);
  });

  it("paused subscriptions are skipped", async () => {
    await follow("C1");
    await follow("C2", {}, true);
    const { event } = enriched({ sentiment: "neutral" });
    expect((await routeThreadEvent(event, deps)).channels).toBe(1);
    expect((await slackJobs()).map((j) => j.data.channelId)).toEqual(["C1"]);
  });

  it("filters hold back a digest that does not match, per channel", async () => {
    await follow("C-negative", { sentiments: ["negative"] });
    await follow("C-all");
    const { event } = enriched({ sentiment: "positive" });
    expect(await routeThreadEvent(event, deps)).toEqual({
      channels: 1,
      filteredOut: 1,
      sentimentKnown: true,
    });
    expect((await slackJobs()).map((j) => j.data.channelId)).toEqual(["C-all"]);

    const negative = enriched({ sentiment: "negative" });
    // A new listing read (the cached one may be from the very same millisecond).
    deps.lookup.clear();
    expect(await routeThreadEvent(negative.event, deps)).toMatchObject({ channels: 2, filteredOut: 0 });
  });

  it("a thread not on the listing yet: digest without sentiment, and a delayed refresh", async () => {
    await follow("C1");
    const { event } = enriched();
    const absent = threadEventSchema.parse({
      ...event,
      payload: { ...event.payload, threadId: "65f1c0a2e4b0a1d2c3ffff01" },
    });
    const res = await routeThreadEvent(absent, deps);
    expect(res).toEqual({ channels: 1, filteredOut: 0, sentimentKnown: false });
    const [refresh] = await refreshJobs();
    expect(refresh?.data).toEqual({ event: absent, attempt: 1 });
    expect(refresh?.opts.delay).toBe(DELAYS[0]);
  });

  it("listing unavailable (emulator down): digest without sentiment AND a delayed refresh job", async () => {
    await follow("C1");
    await follow("C-negative", { sentiments: ["negative"] });
    const { event } = enriched({ sentiment: "negative", keywords: ["backup"] });
    emulator.faults.set({ down: true });
    const res = await routeThreadEvent(event, deps);
    expect(res).toEqual({ channels: 1, filteredOut: 1, sentimentKnown: false, listingError: "network" });
    const [digest] = await slackJobs();
    if (digest?.data.kind !== "digest") throw new Error("expected one digest job");
    expect(digest.data.channelId).toBe("C1");
    expect(digest.data.digest.sentiment).toBeUndefined();
    expect(digest.data.digest.keywords).toEqual([]);
    expect(digest.data.digest.title).toBe(event.payload.title);
    expect(await queues.refresh.getJobCounts("delayed")).toEqual({ delayed: 1 });
    const [refresh] = await refreshJobs();
    expect(refresh?.opts.delay).toBe(30_000);
    expect(refresh?.data.attempt).toBe(1);
    // Not an operator problem: no incident.
    expect(await ops.open()).toEqual({});
  });

  it("the refresh brings the sentiment: the re-route posts a new rendering and stops refreshing", async () => {
    await follow("C-negative", { sentiments: ["negative"] });
    const { event } = enriched({ sentiment: "negative" });
    emulator.faults.set({ down: true });
    expect((await routeThreadEvent(event, deps)).channels).toBe(0); // held back: sentiment unknown
    emulator.faults.clear();
    const res = await routeThreadEvent(event, deps, { fresh: true, attempt: 1 });
    expect(res).toEqual({ channels: 1, filteredOut: 0, sentimentKnown: true });
    expect((await slackJobs()).map((j) => j.data.channelId)).toEqual(["C-negative"]);
    expect(await refreshJobs()).toHaveLength(1); // only the first one
  });

  it("a listing still showing an earlier enrichment: no sentiment from it, a refresh, and the caught-up listing fills it in", async () => {
    await follow("C1");
    const { thread, event: earlier } = enriched({ summary: "Old words.", sentiment: "positive" });
    const event = threadEventSchema.parse({
      ...earlier,
      actionType: "updated",
      payload: {
        ...earlier.payload,
        summary: "New words.",
        timestamp: new Date(Date.now() + 1).toISOString(),
      },
    });
    expect(await routeThreadEvent(event, deps)).toEqual({
      channels: 1,
      filteredOut: 0,
      sentimentKnown: false,
      listingLagging: true,
    });
    const [first] = await slackJobs();
    if (first?.data.kind !== "digest") throw new Error("expected a digest job");
    expect(first.data.digest).toMatchObject({ summary: "New words.", keywords: [] });
    expect(first.data.digest.sentiment).toBeUndefined();
    expect((await refreshJobs()).map((j) => j.data.attempt)).toEqual([1]);

    emulator.store.updateThread(GROUP, thread.id, { summary: "New  words.", sentiment: "negative" });
    deps.lookup.clear();
    const caughtUp = await routeThreadEvent(event, deps, { fresh: true, attempt: 1 });
    expect(caughtUp).toEqual({ channels: 1, filteredOut: 0, sentimentKnown: true });
    const digests = (await slackJobs()).flatMap((j) => (j.data.kind === "digest" ? [j.data.digest] : []));
    expect(digests.map((d) => d.sentiment)).toContain("negative");
  });

  it("a listing whose summary never matches is used as it is after the bounded looks", async () => {
    await follow("C1");
    const { event: listed } = enriched({ summary: "Worded one way.", sentiment: "mixed" });
    const event = threadEventSchema.parse({
      ...listed,
      payload: { ...listed.payload, summary: "Worded another way." },
    });
    expect((await routeThreadEvent(event, deps, { attempt: 1 })).listingLagging).toBe(true);
    deps.lookup.clear();
    // The looks are bounded at two (DELAYS here has two): the next one takes the listing's sentiment.
    expect(await routeThreadEvent(event, deps, { fresh: true, attempt: 2 })).toEqual({
      channels: 1,
      filteredOut: 0,
      sentimentKnown: true,
    });
  });

  it("refreshes stop after the last delay", async () => {
    await follow("C1");
    const { event } = enriched();
    emulator.faults.set({ down: true });
    await routeThreadEvent(event, deps, { attempt: DELAYS.length });
    expect(await refreshJobs()).toEqual([]);
    await routeThreadEvent(event, deps, { attempt: DELAYS.length - 1 });
    const [last] = await refreshJobs();
    expect(last?.data.attempt).toBe(DELAYS.length);
    expect(last?.opts.delay).toBe(DELAYS.at(-1));
  });

  it("a 401 from the listing opens the insight-unauthorized incident and alerts the ops channel", async () => {
    const revoked = new InsightClient({
      baseUrl: emulator.baseUrl,
      apiKey: "emu_revoked_0000",
      retry: { maxAttempts: 1 },
    });
    try {
      await follow("C1");
      const { event } = enriched({ sentiment: "negative" });
      const res = await routeThreadEvent(event, { ...deps, lookup: new ThreadLookup(revoked) });
      expect(res).toMatchObject({ channels: 1, sentimentKnown: false, listingError: "unauthorized" });
      const open = await ops.open();
      expect(Object.keys(open)).toEqual(["insight-unauthorized"]);
      expect(open["insight-unauthorized"]?.text).toContain("401");
      const jobs = (await slackJobs()).map((j) => j.data);
      expect(jobs.filter((j) => j.kind === "notice").map((j) => j.channelId)).toEqual([OPS]);
      expect(jobs.filter((j) => j.kind === "digest").map((j) => j.channelId)).toEqual(["C1"]);
      // The key never reaches the alert.
      expect(JSON.stringify(jobs)).not.toContain("emu_revoked_0000");
    } finally {
      await revoked.close();
    }
  });

  describe("the first post waits briefly for the sentiment (rule 10)", () => {
    const WAITS = [3_000, 7_000];

    it("not listed yet: nothing goes out; the listing is looked at again within seconds, then the post goes as it is", async () => {
      await follow("C1");
      const { event } = enriched();
      const absent = threadEventSchema.parse({
        ...event,
        payload: { ...event.payload, threadId: "65f1c0a2e4b0a1d2c3ffff02" },
      });
      const waiting = { ...deps, firstPostWaitsMs: WAITS };
      expect(await routeThreadEvent(absent, waiting)).toEqual({
        channels: 0,
        filteredOut: 0,
        sentimentKnown: false,
        waiting: true,
      });
      expect(await slackJobs()).toEqual([]);
      const [first] = await refreshJobs();
      expect(first?.data).toEqual({ event: absent, attempt: 0, waited: 1 });
      expect(first?.opts.delay).toBe(3_000);
      // The second short look.
      expect((await routeThreadEvent(absent, waiting, { waited: 1 })).waiting).toBe(true);
      expect((await refreshJobs()).find((j) => j.data.waited === 2)?.opts.delay).toBe(7_000);
      // The wait is bounded: after it, the card goes without the sentiment and the later looks begin.
      expect(await routeThreadEvent(absent, waiting, { waited: 2 })).toEqual({
        channels: 1,
        filteredOut: 0,
        sentimentKnown: false,
      });
      expect((await slackJobs()).map((j) => j.data.kind)).toEqual(["digest"]);
      expect((await refreshJobs()).find((j) => j.data.attempt === 1)?.opts.delay).toBe(DELAYS[0]);
    });

    it("the listing catches up during the wait: one card, with its sentiment, and no later look", async () => {
      await follow("C1");
      const { thread, event } = enriched();
      const waiting = { ...deps, firstPostWaitsMs: WAITS };
      emulator.store.updateThread(GROUP, thread.id, { sentiment: "" });
      expect((await routeThreadEvent(event, waiting)).waiting).toBe(true);
      emulator.store.updateThread(GROUP, thread.id, { sentiment: "negative" });
      deps.lookup.clear();
      expect(await routeThreadEvent(event, waiting, { waited: 1 })).toEqual({
        channels: 1,
        filteredOut: 0,
        sentimentKnown: true,
      });
      const [digest] = await slackJobs();
      if (digest?.data.kind !== "digest") throw new Error("expected one digest job");
      expect(digest.data.digest.sentiment).toBe("negative");
      expect((await refreshJobs()).map((j) => j.data)).toEqual([{ event, attempt: 0, waited: 1 }]);
    });

    it("a sentiment already listed posts at once, without a wait", async () => {
      await follow("C1");
      const { event } = enriched({ sentiment: "mixed" });
      expect((await routeThreadEvent(event, { ...deps, firstPostWaitsMs: WAITS })).channels).toBe(1);
      expect(await refreshJobs()).toEqual([]);
    });
  });

  describe("thresholds, counted again as the thread grows", () => {
    it("a thread under --min-messages is kept for a recount; counted again with more messages, it goes out and is let go", async () => {
      await follow("C-five", { minMessages: 5 });
      const { thread, event } = enriched({ sentiment: "neutral", messageCount: 3 });
      const held = new BelowThresholdStore(redis, stateKeys(prefix));
      let counted = { messageCount: 3, participantCount: 2 };
      const withHold = { ...deps, belowThreshold: held, countThread: async () => counted };
      expect(await routeThreadEvent(event, withHold)).toEqual({
        channels: 0,
        filteredOut: 1,
        sentimentKnown: true,
        belowThreshold: 1,
      });
      expect((await held.get(thread.id))?.payload.threadId).toBe(thread.id);
      // Still under: nothing, still kept.
      expect((await routeThreadEvent(event, withHold, { recount: true })).channels).toBe(0);
      expect(await held.get(thread.id)).toBeDefined();
      counted = { messageCount: 7, participantCount: 4 };
      expect(await routeThreadEvent(event, withHold, { recount: true })).toEqual({
        channels: 1,
        filteredOut: 0,
        sentimentKnown: true,
      });
      const [job] = await slackJobs();
      if (job?.data.kind !== "digest") throw new Error("expected a digest job");
      expect(job.data.digest).toMatchObject({ messageCount: 7, participantCount: 4 });
      expect(await held.get(thread.id)).toBeUndefined();
    });

    it("a thread out of other filters too is not kept", async () => {
      await follow("C-neg-five", { minMessages: 5, sentiments: ["negative"] });
      const { thread, event } = enriched({ sentiment: "positive", messageCount: 3 });
      const held = new BelowThresholdStore(redis, stateKeys(prefix));
      const res = await routeThreadEvent(event, { ...deps, belowThreshold: held });
      expect(res.belowThreshold).toBeUndefined();
      expect(await held.get(thread.id)).toBeUndefined();
    });
  });

  describe("personal watches on the delivery path", () => {
    const MAYA = "U0MAYA";
    const SAM = "U0SAM";
    let watches: WatchStore;
    let watchDms: WatchDmRefs;
    let pending: WatchPendingStore;
    const withWatches = (zones: Record<string, string> = {}) => ({
      ...deps,
      watches: {
        watches,
        watchDms,
        watchPending: pending,
        userTimeZoneOf: async (u: string) => zones[u] ?? "UTC",
        logger: silentLogger,
      },
    });
    beforeEach(() => {
      const keys = stateKeys(prefix);
      watches = new WatchStore(redis, keys);
      watchDms = new WatchDmRefs(redis, keys);
      pending = new WatchPendingStore(redis, keys);
    });

    it("a group no channel follows: the listing is read for a watch that covers it, and the match goes as a DM job in the person's turn", async () => {
      await watches.add(MAYA, { words: ["refund", "failed"], filters: {} }, new Date());
      await watches.add(SAM, { words: ["backups"], filters: {} }, new Date());
      const { thread, event } = enriched({ title: "Refund failed twice", sentiment: "negative" });
      expect(await routeThreadEvent(event, withWatches())).toEqual({
        channels: 0,
        filteredOut: 0,
        sentimentKnown: true,
        watchDeliveries: 1,
      });
      const jobs = await slackJobs();
      expect(jobs.map((j) => [j.name, j.data.channelId])).toEqual([["watch-dm", MAYA]]);
      expect(jobs[0]?.data).toMatchObject({ kind: "watch-dm", userId: MAYA, watchId: "1" });
      expect(jobs[0]?.id).toBe(`watch-dm|${MAYA}|${thread.id}|${Date.parse(event.payload.timestamp)}|s`);
      // The same delivery again queues nothing new.
      await routeThreadEvent(event, withWatches());
      expect(await slackJobs()).toHaveLength(1);
    });

    it("no watch covers the group and no channel follows it: nothing is read", async () => {
      await watches.add(
        MAYA,
        { words: ["refund"], group: { id: "another-group", name: "Other" }, filters: {} },
        new Date(),
      );
      const { event } = enriched({ title: "Refund failed twice" });
      expect(await routeThreadEvent(event, withWatches())).toEqual({
        channels: 0,
        filteredOut: 0,
        sentimentKnown: false,
      });
      expect(emulator.requests.count()).toBe(0);
    });

    it("someone with a DM of the thread gets an edit job; quiet hours keep the match and queue one gathering job at their end", async () => {
      // Sam's quiet hours: the hour before now to the hour after, in his own zone.
      const zone = "Asia/Kolkata";
      const local = new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      })
        .format(new Date())
        .split(":")
        .map(Number);
      const nowMin = (local[0] ?? 0) * 60 + (local[1] ?? 0);
      const quiet = { from: (nowMin + 1380) % 1440, to: (nowMin + 60) % 1440 };
      await watches.add(MAYA, { words: ["refund"], filters: {} }, new Date());
      await watches.add(SAM, { words: ["refund"], filters: {}, quiet }, new Date());
      const { thread, event } = enriched({ title: "Refund failed twice", sentiment: "negative" });
      await watchDms.set(MAYA, thread.id, {
        kind: "card",
        channel: "D0MAYA",
        ts: "1.1",
        watchId: "1",
        digest: buildThreadDigest(event, undefined),
        sentAtMs: 1,
      });
      const before = Date.now();
      expect((await routeThreadEvent(event, withWatches({ [SAM]: zone }))).watchDeliveries).toBe(2);
      const jobs = await slackJobs();
      expect(jobs.map((j) => j.name).sort()).toEqual(["watch-edit", "watch-gather"]);
      const edit = jobs.find((j) => j.name === "watch-edit");
      expect(edit?.data).toMatchObject({
        channelId: MAYA,
        userId: MAYA,
        threadId: thread.id,
        stillMatches: true,
      });
      const gather = jobs.find((j) => j.name === "watch-gather");
      expect(gather?.data).toMatchObject({ kind: "watch-gather", channelId: SAM, userId: SAM });
      const [held] = await pending.peek(SAM);
      expect(held?.digest.threadId).toBe(thread.id);
      expect(gather?.id).toBe(gatherJobId(SAM, held?.dueAtMs ?? 0));
      // Due at the end of his quiet hours: within the next hour.
      expect(held?.dueAtMs).toBeGreaterThan(before + 59 * 60_000 - 60_000);
      expect(held?.dueAtMs).toBeLessThanOrEqual(before + 60 * 60_000);
      expect(gather?.opts.delay).toBeGreaterThan(58 * 60_000);
    });
  });
});
