import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { OverdueJobs } from "../../src/jobs/overdue-jobs.js";
import { createMetrics } from "../../src/metrics.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

const gaugeOf = async (m: ReturnType<typeof createMetrics>) =>
  Object.fromEntries(
    (await m.overdueJobs.get()).values.map((v) => [
      `${String(v.labels.queue)} ${String(v.labels.state)}`,
      v.value,
    ]),
  );

describe("OverdueJobs on a real Redis", () => {
  const prefix = uniquePrefix("overdue");
  let redis: Redis;
  let delayed: Queue;
  let waiting: Queue;
  let prioritized: Queue;
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
    delayed = new Queue("{slack-out-3}", { connection: redis, prefix });
    waiting = new Queue("{deliveries-1}", { connection: redis, prefix });
    prioritized = new Queue("{enrich-refresh-2}", { connection: redis, prefix });
  });
  afterAll(async () => {
    await Promise.all([delayed.close(), waiting.close(), prioritized.close()]);
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it("finds delayed jobs past their time, counts them, and sets the gauge per queue and state", async () => {
    const t0 = Date.now();
    await delayed.add("notice", { n: 1 }, { delay: 1_000 });
    await delayed.add("notice", { n: 2 }, { delay: 1_500 });
    await delayed.add("notice", { n: 3 }, { delay: 600_000 }); // due in ten minutes: not overdue
    let clock = t0;
    const metrics = createMetrics();
    const overdue = new OverdueJobs(
      { redis, queues: () => [delayed], gauge: metrics.overdueJobs },
      { boundMs: 2_000, now: () => clock },
    );
    expect(await overdue.look()).toEqual([]);
    clock = t0 + 1_000 + 2_500; // the first is 2.5 s past its time, the second 2 s: only the first is over the bound
    const first = await overdue.look();
    expect(first?.map((o) => [o.queue, o.state, o.jobs])).toEqual([["{slack-out-3}", "delayed", 1]]);
    expect(first?.[0]?.forMs).toBeGreaterThanOrEqual(2_400);
    clock = t0 + 10_000;
    const both = await overdue.look();
    expect(both?.map((o) => [o.state, o.jobs])).toEqual([["delayed", 2]]);
    expect(await gaugeOf(metrics)).toEqual({ "{slack-out-3} delayed": 2, "{slack-out-3} waiting": 0 });
  });

  it("finds waiting jobs (plain or prioritized) that no worker takes, and clears once a worker takes them", async () => {
    await waiting.addBulk([1, 2, 3].map((n) => ({ name: "delivery", data: { n } })));
    await prioritized.add("refresh", { n: 1 }, { priority: 5 });
    let clock = Date.now();
    const metrics = createMetrics();
    const overdue = new OverdueJobs(
      { redis, queues: () => [waiting, prioritized], gauge: metrics.overdueJobs },
      { boundMs: 2_000, now: () => clock },
    );
    expect(await overdue.look()).toEqual([]); // a first look only remembers what is next
    clock += 2_500;
    expect((await overdue.look())?.map((o) => [o.queue, o.state, o.jobs])).toEqual([
      ["{deliveries-1}", "waiting", 3],
      ["{enrich-refresh-2}", "waiting", 1],
    ]);
    expect((await gaugeOf(metrics))["{deliveries-1} waiting"]).toBe(3);

    const blocking = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
    const worker = new Worker("{deliveries-1}", async () => undefined, { connection: blocking, prefix });
    try {
      const end = Date.now() + 10_000;
      while ((await waiting.getWaitingCount()) > 0 && Date.now() < end)
        await new Promise((r) => setTimeout(r, 50));
      clock += 500;
      expect((await overdue.look())?.map((o) => o.queue)).toEqual(["{enrich-refresh-2}"]);
      expect((await gaugeOf(metrics))["{deliveries-1} waiting"]).toBe(0);
    } finally {
      await worker.close();
      blocking.disconnect();
    }
  });

  describe("against a Redis that accepts connections and never answers", () => {
    let silent: Server;
    let port = 0;
    const sockets: Socket[] = [];
    beforeAll(async () => {
      silent = createServer((socket) => void sockets.push(socket));
      await new Promise<void>((r) => silent.listen(0, "127.0.0.1", () => r()));
      const addr = silent.address();
      port = typeof addr === "object" && addr ? addr.port : 0;
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    });

    it("answers within its bound, saying it could not tell (undefined)", async () => {
      const stuck = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: null });
      stuck.on("error", () => undefined);
      try {
        const overdue = new OverdueJobs(
          { redis: stuck, queues: () => [delayed, waiting] },
          { redisTimeoutMs: 300 },
        );
        const started = Date.now();
        expect(await overdue.look()).toBeUndefined();
        expect(Date.now() - started).toBeLessThan(1_000);
      } finally {
        stuck.disconnect();
      }
    });
  });
});
