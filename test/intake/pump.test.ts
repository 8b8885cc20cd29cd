import { afterAll, afterEach, describe, expect, it } from "vitest";
import { countingIntake, intakeLength } from "../../src/intake/view.js";
import { IntakePump, type IntakePumpDeps } from "../../src/intake/pump.js";
import { MAX_BATCH_JOB } from "../../src/intake/batch-jobs.js";
import { deliveriesOf, type DeliveriesJob, type DeliveryJob } from "../../src/jobs/job-types.js";
import { deliveriesQueue } from "../../src/jobs/queue-registry.js";
import type { ShardedQueue } from "../../src/jobs/sharded-queue.js";
import { silentLogger } from "../../src/log.js";
import { groupFollowed } from "../../src/intake/followed-groups.js";
import { receiptBooks } from "../../src/intake/receipt-books.js";
import { createMetrics } from "../../src/metrics.js";
import { stateKeys, workspacePrefix } from "../../src/store/keys.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { createRedis } from "../../src/store/redis.js";
import { readMarker, recordReceipts } from "../../src/intake/receipts.js";
import { classifyDelivery } from "../../src/intake/classify-delivery.js";
import { formatIntakeEntry } from "../../src/intake/entry.js";
import { workspaceDeliveries } from "../../src/workspaces/workspace-queues.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/**
 * An entry as a receiver before this version wrote it (its receipt recorded already): most tests
 * here push these, to set a job's every field; the receipts of entries as received are in
 * record-receipts.test.ts and at the end of this file.
 */
interface IntakeItem {
  job: DeliveryJob;
  workspaceId?: string;
}

const at = (n: number) => new Date(1_700_000_000_000 + n).toISOString();
/** What every intake entry's job carries besides its event. */
const received = (deliveryId: string, n: number) => ({
  deliveryId,
  receivedAt: at(n),
  deduplicated: true as const,
});

const message = (n: number, groupId: string): DeliveryJob => ({
  ...received(`m-${n}`, n),
  event: {
    webhookType: "chatmessage-crud",
    actionType: "created",
    payload: { messageId: `msg-${n}`, threadId: "t-1", groupId, communityId: "c-1", timestamp: at(n) },
  },
});

const follow = (store: SubscriptionStore, groupId: string, paused?: { code: string; at: string }) =>
  store.put({
    channelId: "C1",
    groupId,
    groupName: groupId,
    communityId: "c-1",
    filters: {},
    createdBy: "U1",
    createdAt: new Date(0).toISOString(),
    ...(paused ? { paused } : {}),
  });

const job = (n: number, threadId = `t-${n % 3}`, groupId = "g-1"): DeliveryJob => ({
  ...received(`d-${n}`, n),
  event: {
    webhookType: "chatthread-crud",
    actionType: "updated",
    payload: {
      threadId,
      groupId,
      communityId: "c-1",
      timestamp: at(n),
      title: `Thread ${n}`,
      summary: "",
    },
  },
});

describe("the intake pump", () => {
  const redis = createRedis(testRedisUrl(), "shared", silentLogger);
  const opened: { close(): Promise<unknown> }[] = [];
  const prefixes: string[] = [];
  afterEach(async () => {
    for (const o of opened.splice(0)) await o.close();
  });
  afterAll(async () => {
    redis.disconnect();
    for (const p of prefixes) await dropPrefix(p);
  });

  const setUp = (shards = 1) => {
    const prefix = uniquePrefix("intake");
    prefixes.push(prefix);
    const keys = stateKeys(prefix);
    const deliveries = deliveriesQueue(redis, prefix, { cluster: false, shards });
    opened.push(deliveries);
    const pump = (o: Partial<IntakePumpDeps> = {}) => {
      const p = new IntakePump({
        redis,
        blocking: createRedis(testRedisUrl(), "blocking", silentLogger),
        keys,
        deliveriesFor: (w) => (w ? workspaceDeliveries(deliveries, w, { ownIds: true }) : deliveries),
        receiptsFor: receiptBooks(redis, prefix),
        logger: silentLogger,
        // The tests' gathering, as the app harness's (FAST_TUNING): production's second would
        // only slow them.
        lingerMs: 100,
        ...o,
      });
      opened.push(p);
      return p;
    };
    const push = (...items: IntakeItem[]) => redis.rpush(keys.intake, ...items.map((i) => JSON.stringify(i)));
    return { prefix, keys, deliveries, pump, push };
  };

  /** The waiting jobs in queue order: each one's id, and the deliveries it holds. */
  const waitingJobs = async (q: ShardedQueue<DeliveriesJob>) =>
    (await q.getJobs(["waiting"], 0, -1, true)).map((j) => ({
      id: j.id,
      deliveries: deliveriesOf(j.data).map((d) => d.deliveryId),
    }));
  /** Every waiting delivery, in queue order (batch jobs opened). */
  const waitingIds = async (q: ShardedQueue<DeliveriesJob>) =>
    (await waitingJobs(q)).flatMap((j) => j.deliveries);
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `d-${from + i}`);

  it("queues every entry in the order it was acknowledged, a batch's in jobs of at most twenty, and empties the intake", async () => {
    const { keys, deliveries, pump, push } = setUp();
    await push(...Array.from({ length: 250 }, (_, n) => ({ job: job(n) })));
    // Three batches of at most 100, in jobs of at most 20, named after their first and last deliveries.
    expect(await pump().drain()).toBe(250);
    const chunks = Array.from({ length: 13 }, (_, i) => [
      i * MAX_BATCH_JOB,
      Math.min(250, (i + 1) * MAX_BATCH_JOB),
    ]);
    expect(await waitingJobs(deliveries)).toEqual(
      chunks.map(([from = 0, to = 0]) => ({
        id: `batch|d-${from}|d-${to - 1}|${to - from}`,
        deliveries: range(from, to),
      })),
    );
    const first = await deliveries.getJob("batch|d-0|d-19|20");
    expect(first?.name).toBe("batch");
    expect(first?.data).toEqual({ batch: Array.from({ length: MAX_BATCH_JOB }, (_, n) => job(n)) });
    expect(await redis.llen(keys.intake)).toBe(0);
    expect(await redis.llen(keys.intakeMoving)).toBe(0);
  });

  it("a delivery alone in its batch gets a job of its own, under its delivery id", async () => {
    const { deliveries, pump, push } = setUp();
    await push({ job: job(1) });
    await pump().drain();
    const only = await deliveries.getJob("d-1");
    expect(only?.name).toBe("chatthread-crud");
    expect(only?.data).toEqual(job(1));
  });

  it("keeps each thread's order across shards", async () => {
    const { deliveries, pump, push } = setUp(4);
    await push(...Array.from({ length: 60 }, (_, n) => ({ job: job(n, `thread-${n % 7}`) })));
    await pump().drain();
    const jobs = await deliveries.getJobs(["waiting"], 0, -1, true);
    // A job holds one shard's deliveries (it is in that shard's queue), at most twenty.
    for (const j of jobs) expect(deliveriesOf(j.data).length).toBeLessThanOrEqual(MAX_BATCH_JOB);
    const queued = jobs.flatMap((j) => deliveriesOf(j.data).map((d) => ({ d, shard: j.queueName })));
    expect(queued).toHaveLength(60);
    for (let t = 0; t < 7; t++) {
      const ofThread = queued.filter(({ d }) => d.event.payload.threadId === `thread-${t}`);
      // One shard per thread, and within it the order of acknowledgement.
      expect(new Set(ofThread.map((q) => q.shard)).size).toBe(1);
      const order = ofThread.map(({ d }) => Number(d.deliveryId.slice(2)));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it("a batch left in flight by a killed pump is queued first by the next, as the same job, once, before newer entries", async () => {
    const { keys, deliveries, pump, push } = setUp();
    // What a pump killed between moving a batch and its next step leaves: the batch list, and
    // its job already queued.
    await redis.rpush(keys.intakeMoving, ...[0, 1, 2].map((n) => JSON.stringify({ job: job(n) })));
    await deliveries.add("batch", { batch: [0, 1, 2].map((n) => job(n)) }, { jobId: "batch|d-0|d-2|3" });
    await push({ job: job(3) }, { job: job(4) });
    expect(await pump().drain()).toBe(5);
    // Not filled up with newer entries first: the same batch makes the same job, a no-op.
    expect(await waitingJobs(deliveries)).toEqual([
      { id: "batch|d-0|d-2|3", deliveries: ["d-0", "d-1", "d-2"] },
      { id: "batch|d-3|d-4|2", deliveries: ["d-3", "d-4"] },
    ]);
  });

  it("stamps a workspace's entries with it, in order with the rest", async () => {
    const { deliveries, pump, push } = setUp();
    await push(
      { job: job(1) },
      { job: job(2), workspaceId: "T1" },
      { job: job(3), workspaceId: "T1" },
      { job: job(4) },
    );
    await pump().drain();
    expect(await waitingJobs(deliveries)).toEqual([
      { id: "d-1", deliveries: ["d-1"] },
      { id: "w|T1|batch|d-2|d-3|2", deliveries: ["d-2", "d-3"] },
      { id: "d-4", deliveries: ["d-4"] },
    ]);
    expect((await deliveries.getJob("w|T1|batch|d-2|d-3|2"))?.data).toMatchObject({ workspaceId: "T1" });
  });

  it("drops an entry that is not JSON and queues the rest", async () => {
    const { keys, deliveries, pump, push } = setUp();
    await redis.rpush(keys.intake, "{not json");
    await push({ job: job(1) });
    expect(await pump().drain()).toBe(2);
    expect(await waitingIds(deliveries)).toEqual(["d-1"]);
    expect(await redis.llen(keys.intake)).toBe(0);
  });

  it("one pump leads at a time; when the leader stops, another takes over", async () => {
    const { deliveries, pump, push } = setUp();
    const a = pump({ leaseMs: 1_000 });
    const b = pump({ leaseMs: 1_000 });
    await push({ job: job(1) });
    expect(await a.drain()).toBe(1);
    await push({ job: job(2) });
    // b finds a's lease: nothing moved.
    expect(await b.drain()).toBeUndefined();
    expect(await waitingIds(deliveries)).toEqual(["d-1"]);
    await a.close();
    expect(await b.drain()).toBe(1);
    expect(await waitingIds(deliveries)).toEqual(["d-1", "d-2"]);
  });

  it("a killed leader's lease runs out, and the next pump moves what waits", async () => {
    const { keys, deliveries, pump, push } = setUp();
    // A lease held by a process that is gone.
    await redis.set(keys.intakeLease, "killed-pump", "PX", 300);
    await push({ job: job(1) });
    const b = pump({ leaseMs: 1_000 });
    expect(await b.drain()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 350));
    expect(await b.drain()).toBe(1);
    expect(await waitingIds(deliveries)).toEqual(["d-1"]);
  });

  it("a lease that lapsed in a quiet spell is its leader's to take back; another pump takes it only when a delivery waits", async () => {
    const { keys, deliveries, pump, push } = setUp();
    const a = pump({ leaseMs: 300 });
    const b = pump({ leaseMs: 300 });
    expect(await a.drain()).toBe(0);
    await new Promise((r) => setTimeout(r, 350));
    expect(await redis.get(keys.intakeLease)).toBeNull();
    // Nothing waits: b stands by and leaves the lapsed lease alone.
    expect(await b.drain()).toBeUndefined();
    expect(await redis.get(keys.intakeLease)).toBeNull();
    // The leader takes it back at its next step.
    expect(await a.drain()).toBe(0);
    expect(await b.drain()).toBeUndefined();
    // A leader gone quiet for good (killed): the first look that finds a delivery waiting takes over.
    await new Promise((r) => setTimeout(r, 350));
    await push({ job: job(1) });
    expect(await b.drain()).toBe(1);
    expect(await a.drain()).toBeUndefined();
    expect(await waitingIds(deliveries)).toEqual(["d-1"]);
  });

  it("running, its idle wait outlasts its lease, and a delivery after the lease lapsed is queued at once", async () => {
    const { keys, deliveries, pump, push } = setUp();
    const p = pump({ leaseMs: 300, waitSeconds: 5 }).start();
    await new Promise((r) => setTimeout(r, 600));
    // Waiting, not stepping: the lease lapsed.
    expect(await redis.get(keys.intakeLease)).toBeNull();
    const at = Date.now();
    await push({ job: job(3) });
    while (!(await deliveries.getJob("d-3")) && Date.now() - at < 5_000)
      await new Promise((r) => setTimeout(r, 5));
    expect(Date.now() - at).toBeLessThan(1_000);
    await p.close();
  });

  it("running, a delivery that lands while a step runs waits for the next gathering, and a step's batch is dropped before the wait", async () => {
    const { keys, deliveries, pump, push } = setUp();
    let during: Promise<unknown> | undefined;
    const p = pump({
      lingerMs: 300,
      waitSeconds: 5,
      // Lands while the first step is queueing its batch.
      followed: async () => {
        during ??= push({ job: job(9) });
        await during;
        return true;
      },
    }).start();
    await new Promise((r) => setTimeout(r, 200));
    await push(...[1, 2, 3].map((n) => ({ job: job(n) })));
    const at = Date.now();
    while ((await waitingIds(deliveries)).length < 4 && Date.now() - at < 5_000)
      await new Promise((r) => setTimeout(r, 5));
    expect(await waitingIds(deliveries)).toEqual(["d-1", "d-2", "d-3", "d-9"]);
    const [first, later] = await Promise.all([
      deliveries.getJob("batch|d-1|d-3|3"),
      deliveries.getJob("d-9"),
    ]);
    // A step that moved less than a full batch ended the gathering: d-9 was not chased at once.
    expect((later?.timestamp ?? 0) - (first?.timestamp ?? 0)).toBeGreaterThanOrEqual(250);
    expect(await redis.llen(keys.intakeMoving)).toBe(0);
    await p.close();
  });

  it("running, a burst that has filled a batch by the first look is moved without the rest of the gathering", async () => {
    const { deliveries, pump, push } = setUp();
    const p = pump({ lingerMs: 5_000, waitSeconds: 5 }).start();
    await new Promise((r) => setTimeout(r, 200));
    const at = Date.now();
    await push(...Array.from({ length: 150 }, (_, n) => ({ job: job(n) })));
    while ((await waitingIds(deliveries)).length < 150 && Date.now() - at < 8_000)
      await new Promise((r) => setTimeout(r, 5));
    expect(await waitingIds(deliveries)).toEqual(range(0, 150));
    // Two steps (100, then 50) right after the first look, not after 5 s.
    expect(Date.now() - at).toBeLessThan(2_000);
    await p.close();
  });

  it("running, it queues a new entry as soon as it lands, without polling", async () => {
    const ctx = setUp();
    const { deliveries, pump, push } = ctx;
    const p = pump({ waitSeconds: 5 }).start();
    // Let it reach its blocking wait.
    await new Promise((r) => setTimeout(r, 200));
    const at = Date.now();
    await push({ job: job(7) });
    while (!(await deliveries.getJob("d-7")) && Date.now() - at < 5_000)
      await new Promise((r) => setTimeout(r, 5));
    // Well under the 5 s wait: the blocking move woke it.
    expect(Date.now() - at).toBeLessThan(1_000);
    // The step after drops it from the batch list, and it is queued once.
    const { keys } = ctx;
    while ((await redis.llen(keys.intakeMoving)) > 0 && Date.now() - at < 5_000) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(await redis.llen(keys.intakeMoving)).toBe(0);
    expect(await deliveries.getJobCounts("waiting")).toEqual({ waiting: 1 });
    await p.close();
  });

  it("an entry another pump left in the batch list while this one waited is queued, not dropped", async () => {
    const { keys, deliveries, pump, push } = setUp();
    const p = pump({ waitSeconds: 5 }).start();
    await new Promise((r) => setTimeout(r, 200));
    // What a stalled former leader's own blocking wait leaves: an entry it never queued.
    await redis.rpush(keys.intakeMoving, JSON.stringify({ job: job(1) }));
    await push({ job: job(2) });
    const at = Date.now();
    while ((await deliveries.getJobCounts("waiting")).waiting !== 2 && Date.now() - at < 5_000) {
      await new Promise((r) => setTimeout(r, 5));
    }
    // In the order of the batch list: the entry left there first.
    expect(await waitingIds(deliveries)).toEqual(["d-1", "d-2"]);
    await p.close();
    expect(await redis.llen(keys.intakeMoving)).toBe(0);
  });

  it("a pump that lost its lease mid-batch and took it back queues the batch it finds, dropping none of it", async () => {
    const { keys, deliveries, pump, push } = setUp();
    let release = () => undefined as void;
    const gate = new Promise<void>((r) => (release = r));
    // A's first add stalls past its lease.
    const slow = {
      add: async (...a: Parameters<typeof deliveries.add>) => {
        await gate;
        return deliveries.add(...a);
      },
      addBulk: async (jobs: Parameters<typeof deliveries.addBulk>[0]) => {
        await gate;
        return deliveries.addBulk(jobs);
      },
      shardIndexOf: (data: DeliveriesJob) => deliveries.shardIndexOf(data),
    };
    const a = pump({ deliveriesFor: () => slow });
    await push({ job: job(1) }, { job: job(2) });
    const draining = a.drain();
    while ((await redis.llen(keys.intakeMoving)) < 2) await new Promise((r) => setTimeout(r, 5));
    // Meanwhile B led: queued 1 and 2, took 3 and 4 and stalled in turn; its lease ran out.
    await deliveries.add("batch", { batch: [job(1), job(2)] }, { jobId: "batch|d-1|d-2|2" });
    await redis.del(keys.intakeMoving, keys.intakeLease);
    await redis.rpush(keys.intakeMoving, JSON.stringify({ job: job(3) }), JSON.stringify({ job: job(4) }));
    release();
    expect(await draining).toBe(4);
    expect(await waitingJobs(deliveries)).toEqual([
      { id: "batch|d-1|d-2|2", deliveries: ["d-1", "d-2"] },
      { id: "batch|d-3|d-4|2", deliveries: ["d-3", "d-4"] },
    ]);
    expect(await redis.llen(keys.intakeMoving)).toBe(0);
  });

  it("a standing-by pump closes at once", async () => {
    const { keys, pump } = setUp();
    await redis.set(keys.intakeLease, "another-pump", "PX", 10_000);
    const p = pump({ leaseMs: 10_000 }).start();
    await new Promise((r) => setTimeout(r, 100));
    const at = Date.now();
    await p.close();
    expect(Date.now() - at).toBeLessThan(1_000);
    // Not its lease to give up.
    expect(await redis.get(keys.intakeLease)).toBe("another-pump");
  });

  it("drops an entry that is JSON but not a delivery, and queues the rest", async () => {
    const { keys, deliveries, pump, push } = setUp();
    await redis.rpush(keys.intake, "null", JSON.stringify({ job: { deliveryId: 7 } }));
    await push({ job: job(1) });
    expect(await pump().drain()).toBe(3);
    expect(await waitingIds(deliveries)).toEqual(["d-1"]);
  });

  it("close() ends a blocking wait at once and gives up the lease", async () => {
    const { keys, pump } = setUp();
    const p = pump({ waitSeconds: 5 }).start();
    await new Promise((r) => setTimeout(r, 200));
    expect(await redis.get(keys.intakeLease)).not.toBeNull();
    const at = Date.now();
    await p.close();
    expect(Date.now() - at).toBeLessThan(1_000);
    expect(await redis.get(keys.intakeLease)).toBeNull();
  });

  it("status counts the intake's deliveries as waiting ones of the deliveries queue, and no other queue's", async () => {
    const { keys, deliveries, push } = setUp();
    await push({ job: job(1) }, { job: job(2) });
    await redis.rpush(keys.intakeMoving, JSON.stringify({ job: job(0) }));
    await deliveries.add("chatthread-crud", job(9), { jobId: "d-9" });
    expect(await intakeLength(redis, keys)).toBe(3);
    const [shard] = deliveries.shards();
    if (!shard) throw new Error("no shard");
    const other = {
      name: "slack-out",
      getJobCounts: async () => ({ waiting: 4 }),
      getWorkersCount: async () => 1,
    };
    const [counted, untouched] = countingIntake([shard, other], shard.name, () => intakeLength(redis, keys));
    expect(await counted?.getJobCounts("waiting", "active")).toEqual({ waiting: 4, active: 0 });
    expect(await untouched?.getJobCounts("waiting")).toEqual({ waiting: 4 });
    // Counts that do not ask for "waiting" are left alone.
    expect(await counted?.getJobCounts("failed")).toEqual({ failed: 0 });
  });

  it("drops deliveries of groups nobody follows, asks once per group of a batch, and queues the rest in order", async () => {
    const { prefix, deliveries, pump, push } = setUp();
    await follow(new SubscriptionStore(redis, stateKeys(prefix)), "g-followed");
    const asked: string[] = [];
    const followed = groupFollowed(redis, prefix, { multiWorkspace: false });
    const metrics = createMetrics();
    await push(
      { job: job(1, "t-a", "g-nobody") },
      { job: job(2, "t-b", "g-followed") },
      { job: job(3, "t-c", "g-nobody") },
      { job: message(4, "g-nobody") },
      { job: message(8, "g-followed") },
      // Single-workspace mode routes a stamped entry with the deployment's own subscriptions.
      { job: job(5, "t-d", "g-followed"), workspaceId: "T1" },
      { job: job(7, "t-f", "g-followed") },
    );
    const p = pump({
      followed: (w, g) => {
        asked.push(`${w ?? "-"}/${g}`);
        return followed(w, g);
      },
      unfollowed: metrics.unfollowedDeliveries,
    });
    expect(await p.drain()).toBe(7);
    expect(await waitingJobs(deliveries)).toEqual([
      { id: "batch|d-2|m-8|2", deliveries: ["d-2", "m-8"] },
      { id: "w|T1|d-5", deliveries: ["d-5"] },
      { id: "d-7", deliveries: ["d-7"] },
    ]);
    expect(asked.sort()).toEqual(["-/g-followed", "-/g-nobody", "T1/g-followed"]);
    expect((await metrics.unfollowedDeliveries.get()).values[0]?.value).toBe(3);
  });

  it("with many workspaces, asks each delivery's own workspace, and keeps a delivery without one", async () => {
    const { prefix, deliveries, pump, push } = setUp();
    const storeOf = (w: string) => new SubscriptionStore(redis, stateKeys(workspacePrefix(prefix, w)));
    // A paused subscription still counts: routing decides what a paused channel gets.
    await follow(storeOf("T1"), "g-t1", { code: "channel_not_found", at: new Date(0).toISOString() });
    await follow(storeOf("T2"), "g-t2");
    // The deployment's own keys: not what a workspace's delivery is routed with.
    await follow(new SubscriptionStore(redis, stateKeys(prefix)), "g-t2");
    await push(
      { job: job(1, "t-a", "g-t1"), workspaceId: "T1" },
      { job: job(2, "t-b", "g-t2"), workspaceId: "T1" },
      { job: job(3, "t-c", "g-t2"), workspaceId: "T2" },
      // Such a job runs for every workspace (Workspaces.wrap): it is not the pump's to judge.
      { job: job(4, "t-d", "g-nobody") },
    );
    const p = pump({ followed: groupFollowed(redis, prefix, { multiWorkspace: true }) });
    expect(await p.drain()).toBe(4);
    expect(await waitingJobs(deliveries)).toEqual([
      { id: "w|T1|d-1", deliveries: ["d-1"] },
      { id: "w|T2|d-3", deliveries: ["d-3"] },
      { id: "d-4", deliveries: ["d-4"] },
    ]);
  });

  it("close() waits at most its bound for a step that does not finish, and the batch stays for the next pump", async () => {
    const { deliveries, pump, push } = setUp();
    await push({ job: job(1) });
    // A step whose Redis never answers (a cluster mid-failover).
    const p = pump({ followed: () => new Promise<boolean>(() => undefined) }).start();
    await new Promise((r) => setTimeout(r, 200));
    const at = Date.now();
    await p.close();
    expect(Date.now() - at).toBeGreaterThanOrEqual(1_900);
    expect(Date.now() - at).toBeLessThan(3_000);
    // The lease was given up: another pump moves the batch left in flight.
    expect(await pump().drain()).toBe(1);
    expect(await waitingIds(deliveries)).toEqual(["d-1"]);
  });

  it("a batch whose question Redis cannot answer stays in the intake and is moved on the next step", async () => {
    const { keys, deliveries, pump, push } = setUp();
    await push({ job: job(1, "t-a", "g-nobody") }, { job: job(2, "t-b", "g-followed") });
    let fail = true;
    const p = pump({
      followed: async (_w, g) => {
        if (fail) throw new Error("Redis unavailable");
        return g === "g-followed";
      },
    });
    await expect(p.drain()).rejects.toThrow("Redis unavailable");
    expect(await redis.llen(keys.intakeMoving)).toBe(2);
    expect(await waitingIds(deliveries)).toEqual([]);
    fail = false;
    expect(await p.drain()).toBe(2);
    expect(await waitingIds(deliveries)).toEqual(["d-2"]);
    expect(await redis.llen(keys.intakeMoving)).toBe(0);
  });

  describe("entries as the receiver writes them (received: classified and recorded here)", () => {
    const thread = (n: number, groupId = "g-1") =>
      JSON.stringify({
        webhookType: "chatthread-crud",
        actionType: "updated",
        payload: {
          threadId: `t-${n}`,
          groupId,
          communityId: "c-1",
          timestamp: at(n),
          title: `Thread ${n}`,
          summary: "",
          participantCount: 2,
          messageCount: 3,
        },
      });
    const entry = (body: string, n: number, o: { workspaceId?: string; receipt?: string } = {}) =>
      formatIntakeEntry(at(n), body, { receipt: `r${n}`, ...o });
    const idOf = (body: string) => classifyDelivery(body).deliveryId;

    it("queues valid first receipts in order, drops repeats, keeps dead letters, and records the receipts", async () => {
      const { prefix, keys, deliveries, pump } = setUp();
      const metrics = createMetrics();
      await redis.rpush(
        keys.intake,
        entry(thread(1), 1),
        entry("{not json", 2),
        entry(thread(3), 3),
        entry(thread(1), 4), // a repeat of the first, in the same batch
        JSON.stringify({ job: job(5) }), // an older receiver's entry, in order with the rest
        entry(thread(6), 6),
      );
      expect(await pump({ metrics }).drain()).toBe(6);
      expect(await waitingIds(deliveries)).toEqual([
        idOf(thread(1)),
        idOf(thread(3)),
        "d-5",
        idOf(thread(6)),
      ]);
      const [first] = (await deliveries.getJobs(["waiting"], 0, -1, true)).flatMap((j) =>
        deliveriesOf(j.data),
      );
      expect(first).toEqual({
        deliveryId: idOf(thread(1)),
        receivedAt: at(1),
        event: JSON.parse(thread(1)) as unknown,
        deduplicated: true,
      });
      expect(await readMarker(redis, keys, idOf(thread(1)))).toBe(`${at(1)} r1`);
      const health = receiptBooks(redis, prefix)(undefined).health;
      expect((await health.deadLetters()).map((l) => [l.reason, l.body, l.at])).toEqual([
        ["invalid_json", "{not json", at(2)],
      ]);
      // The older receiver's entry was counted by that receiver: not again.
      expect(await health.deliveryCounts()).toEqual({ "chatthread-crud": 4, invalid: 1 });
      const counted = async (outcome: string) =>
        (await metrics.deliveries.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
      expect([await counted("queued"), await counted("duplicate"), await counted("dead_letter")]).toEqual([
        3, 1, 1,
      ]);
    });

    it("a batch taken again after its receipts were recorded (its pump killed before the add) is still queued, and counted once", async () => {
      const { prefix, keys, deliveries, pump } = setUp();
      // The receipts of this batch were recorded by a pump killed before it added the jobs.
      const book = receiptBooks(redis, prefix)(undefined);
      const bodies = [thread(1), thread(2)];
      await recordReceipts(
        redis,
        book,
        bodies.map((body, i) => ({
          c: classifyDelivery(body),
          receivedAt: at(i + 1),
          receipt: `r${i + 1}`,
          body,
        })),
        { logger: silentLogger },
      );
      await redis.rpush(keys.intakeMoving, entry(bodies[0] ?? "", 1), entry(bodies[1] ?? "", 2));
      expect(await pump().drain()).toBe(2);
      expect(await waitingIds(deliveries)).toEqual(bodies.map(idOf));
      expect(await book.health.deliveryCounts()).toEqual({ "chatthread-crud": 2 });
    });

    it("records a workspace's receipts under its own prefix: the same delivery to two workspaces is a first receipt in each", async () => {
      const { prefix, keys, deliveries, pump } = setUp();
      await redis.rpush(
        keys.intake,
        entry(thread(1), 1, { workspaceId: "T1" }),
        entry(thread(1), 2, { workspaceId: "T2" }),
        entry(thread(1), 3, { workspaceId: "T2" }),
        entry("{}", 4, { workspaceId: "T2" }),
      );
      expect(await pump().drain()).toBe(4);
      expect(await waitingJobs(deliveries)).toEqual([
        { id: `w|T1|${idOf(thread(1))}`, deliveries: [idOf(thread(1))] },
        { id: `w|T2|${idOf(thread(1))}`, deliveries: [idOf(thread(1))] },
      ]);
      const books = receiptBooks(redis, prefix);
      const healthOf = (w: string | undefined) => books(w).health;
      expect(await healthOf("T1").deliveryCounts()).toEqual({ "chatthread-crud": 1 });
      expect(await healthOf("T2").deliveryCounts()).toEqual({ "chatthread-crud": 2, invalid: 1 });
      expect((await healthOf("T2").deadLetters()).map((l) => l.reason)).toEqual(["invalid_envelope"]);
      expect(await healthOf("T1").deadLetters()).toEqual([]);
      expect(await healthOf(undefined).deliveryCounts()).toEqual({});
    });

    it("a batch whose dead letter cannot be kept stays in flight, and the next step keeps it and queues the rest, once", async () => {
      const { prefix, keys, deliveries, pump } = setUp();
      await redis.rpush(keys.intake, entry(thread(1), 1), entry("{not json", 2));
      const books = receiptBooks(redis, prefix);
      let fail = true;
      const p = pump({
        receiptsFor: (w) =>
          fail
            ? { ...books(w), health: { addDeadLetter: () => Promise.reject(new Error("Redis unavailable")) } }
            : books(w),
      });
      await expect(p.drain()).rejects.toThrow("Redis unavailable");
      expect(await redis.llen(keys.intakeMoving)).toBe(2);
      expect(await waitingIds(deliveries)).toEqual([]);
      fail = false;
      // The receipts recorded by the failed step are the same receipts again: they go on.
      expect(await p.drain()).toBe(2);
      expect(await waitingIds(deliveries)).toEqual([idOf(thread(1))]);
      const health = books(undefined).health;
      expect((await health.deadLetters()).map((l) => l.body)).toEqual(["{not json"]);
      expect(await health.deliveryCounts()).toEqual({ "chatthread-crud": 1, invalid: 1 });
    });
  });
});
