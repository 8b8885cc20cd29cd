import type { Job, LockManagerWorkerContext } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { StartedWorkers } from "../../src/jobs/create-worker.js";
import { QUEUE_NAMES } from "../../src/jobs/job-types.js";
import { LockRenewalWhileWorking } from "../../src/jobs/lock-renewal.js";
import { createLogger } from "../../src/log.js";
import { createRedis } from "../../src/store/redis.js";
import { testRedisUrl } from "../helpers/redis.js";
import { workersOnTestRedis } from "../helpers/workers.js";

describe("lock renewal while working (a dummy worker context)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function manager() {
    const extended: string[][] = [];
    const context: LockManagerWorkerContext = {
      name: "q",
      extendJobLocks: async (ids) => {
        extended.push(ids);
        return [];
      },
      emit: () => true,
      trace: (_k, _o, _d, callback) => callback(),
    };
    const m = new LockRenewalWhileWorking(context, {
      lockRenewTime: 10_000,
      lockDuration: 20_000,
      workerId: "w",
    });
    return { m, extended };
  }

  it("sets no timer while it holds no job, renews a held job's lock every half renew time, and stops after", async () => {
    vi.useFakeTimers();
    const { m, extended } = manager();
    m.start();
    expect(m.isRunning()).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(extended).toEqual([]);

    m.trackJob("job-1", "token-1", Date.now());
    expect(m.isRunning()).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000); // held 5 s: not yet past half the renew time
    expect(extended).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_000); // held 10 s
    expect(extended).toEqual([["job-1"]]);

    m.untrackJob("job-1");
    await vi.advanceTimersByTimeAsync(5_000); // the tick after finds nothing: no next one
    expect(m.isRunning()).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(extended).toEqual([["job-1"]]);

    m.trackJob("job-2", "token-2", Date.now());
    expect(m.isRunning()).toBe(true);
    await m.close();
    expect(m.isRunning()).toBe(false);
  });

  it("does nothing before the worker starts it", () => {
    const { m } = manager();
    m.trackJob("job-1", "token-1", Date.now());
    expect(m.isRunning()).toBe(false);
  });
});

describe("a worker's job that runs longer than its lock (real Redis and BullMQ)", () => {
  const w = workersOnTestRedis("lock-renewal");
  const { queues } = w;
  let started: StartedWorkers;
  let runs = 0;

  beforeAll(() => {
    started = w.start(
      [
        {
          queue: QUEUE_NAMES.weekly,
          concurrency: 1,
          processor: async (job: Job) => {
            runs++;
            await new Promise((r) => setTimeout(r, 3_000));
            return job.id;
          },
        },
      ],
      // A lock of 1 s, looked at for stalled jobs every 300 ms: a lock not renewed is lost at once.
      { tuning: { lockDurationMs: 1_000, stalledIntervalMs: 300 } },
    );
  });
  afterAll(() => w.close());

  it("keeps its lock, runs once and completes", async () => {
    const [worker] = started.workers;
    const stalled: string[] = [];
    worker?.on("stalled", (id) => stalled.push(id));
    const done = new Promise<string | undefined>((resolve) =>
      worker?.on("completed", (job) => resolve(job.id)),
    );
    await queues.weekly.add(
      "w",
      { channelId: "C1", trigger: "now", timeZone: "UTC" },
      { jobId: "weekly-long" },
    );
    expect(await done).toBe("weekly-long");
    expect(stalled).toEqual([]);
    expect(runs).toBe(1);
  }, 15_000);
});

describe("an idle worker's blocking fetch while a delayed job waits (real Redis and BullMQ)", () => {
  const w = workersOnTestRedis("idle-look");
  const { prefix, queues } = w;
  const monitor = createRedis(testRedisUrl(), "shared", createLogger({ level: "silent" }));
  afterAll(async () => {
    await w.close();
    monitor.disconnect();
  });

  it("waits its idle look (30 s on one Redis), not BullMQ's 10 s, and still runs a delayed job when it is due", async () => {
    const ran: number[] = [];
    // A scheduler's next run, an hour away: what the alerts and reconcile queues always hold.
    await queues.weekly.add("w", { channelId: "C1", trigger: "now", timeZone: "UTC" }, { delay: 3_600_000 });
    const watching = await monitor.monitor();
    const waits: string[] = [];
    watching.on("monitor", (_time: string, args: string[]) => {
      if (args[0]?.toLowerCase() === "bzpopmin" && args[1]?.startsWith(prefix)) waits.push(args[2] ?? "");
    });
    w.start([
      { queue: QUEUE_NAMES.weekly, concurrency: 1, processor: async () => void ran.push(Date.now()) },
    ]);
    const at = Date.now();
    while (waits.length < 2 && Date.now() - at < 5_000) await new Promise((r) => setTimeout(r, 20));
    // Every wait: the first finds the marker of the delayed job, the next waits for it.
    expect(waits.length).toBeGreaterThan(0);
    expect(new Set(waits.map(Number))).toEqual(new Set([30]));

    // A job due in a second wakes it (its marker), and runs when due.
    const addedAt = Date.now();
    await queues.weekly.add("w", { channelId: "C2", trigger: "now", timeZone: "UTC" }, { delay: 1_000 });
    while (ran.length === 0 && Date.now() - addedAt < 5_000) await new Promise((r) => setTimeout(r, 20));
    expect(ran).toHaveLength(1);
    expect((ran[0] ?? 0) - addedAt).toBeGreaterThanOrEqual(1_000);
    expect((ran[0] ?? 0) - addedAt).toBeLessThan(2_500);
    watching.disconnect();
  }, 15_000);
});
