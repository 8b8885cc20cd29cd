import { randomUUID } from "node:crypto";
import { Worker, type Job } from "bullmq";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import type { SlackJob } from "../../src/jobs/job-types.js";
import { queueLayout } from "../../src/jobs/queue-layout.js";
import { silentLogger } from "../../src/log.js";
import { fairTurnsKey } from "../../src/store/keys.js";
import { createRedis, type RedisClient } from "../../src/store/redis.js";
import { FairTurns, PRIORITY_LIMIT } from "../../src/workspaces/fair-turns.js";
import { workspaceQueues } from "../../src/workspaces/workspace-queues.js";
import {
  clusterAvailable,
  seedsOf,
  startTestCluster,
  type LocalRedisCluster,
} from "../helpers/redis-cluster.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const notice = (channelId: string, text: string): SlackJob => ({ kind: "notice", channelId, text });

/** One workspace's producer of the slack-out queue, as multi-workspace mode builds it. */
const producerOf = (queues: Queues, turns: FairTurns, workspaceId: string) =>
  workspaceQueues(queues, workspaceId, { ownIds: true, turns }).slack;

describe("fair turns across workspaces in the slack-out queue (real Redis and BullMQ)", () => {
  let redis: RedisClient;
  let prefix: string;
  let queues: Queues;
  let turns: FairTurns;
  let worker: Worker | undefined;

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("fair");
    queues = createQueues(redis, prefix, silentLogger);
    turns = new FairTurns(redis, prefix);
  });
  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await queues.close();
    await dropPrefix(prefix);
  });

  /** A worker that fetches by hand: jobs come out in the order BullMQ would serve them. */
  async function serve(n: number): Promise<Job<SlackJob>[]> {
    const shard = queues.slack.shards()[0];
    if (!shard) throw new Error("no shard");
    worker ??= new Worker<SlackJob>(shard.name, null, {
      connection: createRedis(testRedisUrl(), "blocking", silentLogger),
      prefix,
    });
    const out: Job<SlackJob>[] = [];
    for (let i = 0; i < n; i++) {
      const token = randomUUID();
      const job = (await worker.getNextJob(token, { block: false })) as Job<SlackJob> | undefined;
      if (!job) break;
      await job.moveToCompleted("done", token, false);
      out.push(job);
    }
    return out;
  }
  const who = (j: Job<SlackJob>) =>
    `${(j.data as { workspaceId?: string }).workspaceId}:${j.data.kind === "notice" ? j.data.text : ""}`;

  it("a workspace's single job goes right behind the head of another's backlog of 1,000", async () => {
    const a = producerOf(queues, turns, "TA");
    const b = producerOf(queues, turns, "TB");
    await a.addBulk(
      Array.from({ length: 1_000 }, (_, i) => ({ name: "notice", data: notice(`CA${i % 50}`, `a${i}`) })),
    );
    await b.add("notice", notice("CB", "b0"));
    const served = (await serve(3)).map(who);
    expect(served).toEqual(["TA:a0", "TB:b0", "TA:a1"]);
  });

  it("a workspace arriving while another's backlog drains still waits one turn at most", async () => {
    const a = producerOf(queues, turns, "TA");
    const b = producerOf(queues, turns, "TB");
    for (let i = 0; i < 30; i++) await a.add("notice", notice("CA", `a${i}`));
    expect((await serve(10)).map(who)).toEqual(Array.from({ length: 10 }, (_, i) => `TA:a${i}`));
    await b.add("notice", notice("CB", "b0"));
    await b.add("notice", notice("CB", "b1"));
    // Both keep adding: turns alternate, and each workspace's own jobs stay in the order added.
    await a.add("notice", notice("CA", "a30"));
    const served = (await serve(40)).map(who);
    expect(served.slice(0, 4)).toEqual(["TA:a10", "TB:b0", "TA:a11", "TB:b1"]);
    expect(served.filter((s) => s.startsWith("TA:"))).toEqual(
      Array.from({ length: 21 }, (_, i) => `TA:a${i + 10}`),
    );
  });

  it("two busy workspaces alternate turns, each in its own order", async () => {
    const a = producerOf(queues, turns, "TA");
    const b = producerOf(queues, turns, "TB");
    await a.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: "notice", data: notice("CA", `a${i}`) })));
    await b.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: "notice", data: notice("CB", `b${i}`) })));
    expect((await serve(10)).map(who)).toEqual([
      "TA:a0",
      "TB:b0",
      "TA:a1",
      "TB:b1",
      "TA:a2",
      "TB:b2",
      "TA:a3",
      "TB:b3",
      "TA:a4",
      "TB:b4",
    ]);
  });

  it("once nothing waits, a new round starts: every workspace level again, tags small", async () => {
    const a = producerOf(queues, turns, "TA");
    await a.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: "notice", data: notice("CA", `a${i}`) })));
    const shard = queues.slack.shards()[0];
    if (!shard) throw new Error("no shard");
    expect(await turns.take(shard, "TA")).toBe(21);
    await serve(20);
    expect(await turns.take(shard, "TA")).toBe(1);
  });

  it("near BullMQ's priority limit tags stay at it, the jobs are accepted and keep their order", async () => {
    const a = producerOf(queues, turns, "TA");
    const shard = queues.slack.shards()[0];
    if (!shard) throw new Error("no shard");
    await a.add("notice", notice("CA", "a0"));
    // A workspace whose tags grew for long without the queue ever emptying.
    await redis.hset(fairTurnsKey(prefix, shard.name), "TA", PRIORITY_LIMIT - 2);
    for (let i = 1; i <= 5; i++) await a.add("notice", notice("CA", `a${i}`));
    const priorities = (await shard.getJobs(["prioritized"])).map((j) => j.opts.priority ?? 0);
    expect(Math.max(...priorities)).toBe(PRIORITY_LIMIT);
    expect((await serve(6)).map(who)).toEqual(["TA:a0", "TA:a1", "TA:a2", "TA:a3", "TA:a4", "TA:a5"]);
  });

  it("jobs of one workspace that go to different shards take turns in each shard", async () => {
    const layout = queueLayout(false, 3);
    const sharded = createQueues(redis, `${prefix}-s`, silentLogger, layout);
    const t = new FairTurns(redis, `${prefix}-s`);
    try {
      const a = producerOf(sharded, t, "TA");
      await a.addBulk(
        Array.from({ length: 30 }, (_, i) => ({ name: "notice", data: notice(`C${i}`, `a${i}`) })),
      );
      const perShard = await Promise.all(
        sharded.slack
          .shards()
          .map(async (q) => (await q.getJobs(["prioritized"])).map((j) => j.opts.priority ?? 0)),
      );
      // Each shard numbers its own jobs 1..n: a shard's turns do not depend on the others'.
      for (const ps of perShard) expect([...ps].sort((x, y) => x - y)).toEqual(ps.map((_, i) => i + 1));
      expect(perShard.flat()).toHaveLength(30);
    } finally {
      await sharded.close();
      await dropPrefix(`${prefix}-s`);
    }
  });
});

describe.runIf(clusterAvailable)("fair turns on a Redis Cluster (rule 11)", () => {
  let c: LocalRedisCluster;
  let redis: RedisClient;
  beforeAll(async () => {
    c = await startTestCluster();
    redis = createRedis({ url: "redis://127.0.0.1:6379", clusterNodes: seedsOf(c) }, "shared", silentLogger);
  }, 60_000);
  afterAll(async () => {
    redis?.disconnect();
    await c?.close();
  });

  it("the script's keys share the shard's slot on every shard: no CROSSSLOT, turns interleave", async () => {
    const queues = createQueues(redis, "fair", silentLogger, queueLayout(true));
    const turns = new FairTurns(redis, "fair");
    try {
      const a = producerOf(queues, turns, "TA");
      const b = producerOf(queues, turns, "TB");
      await a.addBulk(
        Array.from({ length: 40 }, (_, i) => ({ name: "notice", data: notice(`C${i}`, `a${i}`) })),
      );
      for (let i = 0; i < 8; i++) await b.add("notice", notice(`C${i}`, `b${i}`));
      for (const shard of queues.slack.shards()) {
        const jobs = await shard.getJobs(["prioritized"], 0, -1, true);
        const bJobs = jobs.filter((j) => (j.data as { workspaceId?: string }).workspaceId === "TB");
        // Each of B's jobs is at most one of A's turns behind the head of its shard.
        for (const j of bJobs) expect(j.opts.priority ?? 0).toBeLessThanOrEqual(2);
      }
    } finally {
      await queues.close();
    }
  });
});
