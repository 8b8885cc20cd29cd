import type { Job } from "bullmq";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartedWorkers } from "../../src/jobs/create-worker.js";
import { QUEUE_NAMES } from "../../src/jobs/job-types.js";
import { createLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { startHarness, type Harness } from "../helpers/app-harness.js";
import { workersOnTestRedis } from "../helpers/workers.js";

describe("the worker factory", () => {
  const logLines: string[] = [];
  const logger = createLogger({ level: "warn", destination: { write: (l: string) => logLines.push(l) } });
  const metrics = createMetrics();
  const w = workersOnTestRedis("workers", logger);
  const { queues } = w;
  let started: StartedWorkers;

  beforeAll(() => {
    started = w.start(
      [
        { queue: QUEUE_NAMES.weekly, concurrency: 1, processor: async (job: Job) => job.data as unknown },
        {
          queue: QUEUE_NAMES.reconcile,
          concurrency: 1,
          processor: async () => {
            throw new Error("reconcile pass blew up");
          },
        },
      ],
      { metrics, tuning: { stalledIntervalMs: 1_000 } },
    );
  });
  afterAll(() => w.close());

  it("counts every worker's jobs, logs a failure with its job id and stack, and watches every worker", async () => {
    await queues.weekly.add("w", { channelId: "C1", trigger: "now", timeZone: "UTC" }, { jobId: "weekly-1" });
    await queues.reconcile.add("r", {}, { jobId: "reconcile-1" });
    const deadline = Date.now() + 10_000;
    const value = async (queue: string, outcome: string) =>
      (await metrics.registry.getSingleMetric("insight_relay_jobs_total")?.get())?.values.find(
        (v) => v.labels.queue === queue && v.labels.outcome === outcome,
      )?.value ?? 0;
    while (Date.now() < deadline) {
      if ((await value("weekly", "completed")) === 1 && (await value("reconcile", "failed")) === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await value("weekly", "completed")).toBe(1);
    expect(await value("reconcile", "failed")).toBe(1);
    const failed = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "job failed");
    expect(failed).toMatchObject({ queue: "reconcile", jobId: "reconcile-1" });
    expect(JSON.stringify(failed)).toContain("reconcile pass blew up");
    expect((failed?.err as { stack?: string } | undefined)?.stack).toContain("create-worker.test.ts");
    expect((await started.health.probe()).map((p) => p.name)).toEqual(["weekly", "reconcile"]);
  });

  it("close stops every worker, and readiness then says so", async () => {
    await started.close();
    expect(started.workers.map((w) => w.isRunning())).toEqual([false, false]);
    expect((await started.health.probe()).map((p) => p.reason)).toEqual(["not running", "not running"]);
  });
});

describe("closing workers", () => {
  it("a job that never finishes holds close() for the grace period only, and says so in the log", async () => {
    const logLines: string[] = [];
    const logger = createLogger({ level: "warn", destination: { write: (l: string) => logLines.push(l) } });
    const w = workersOnTestRedis("workers-close", logger);
    const { queues } = w;
    let began = () => undefined as void;
    const active = new Promise<void>((r) => (began = r));
    const started = w.start(
      [
        {
          queue: QUEUE_NAMES.weekly,
          concurrency: 1,
          processor: () => {
            began();
            return new Promise(() => undefined);
          },
        },
      ],
      { tuning: { closeGraceMs: 500 } },
    );
    try {
      await queues.weekly.add("w", { channelId: "C1", trigger: "now", timeZone: "UTC" });
      await active;
      const at = Date.now();
      await started.close();
      expect(Date.now() - at).toBeGreaterThanOrEqual(450);
      expect(Date.now() - at).toBeLessThan(1_500);
      expect(
        logLines.some((l) => l.includes("worker did not close in time; left to the connection's close")),
      ).toBe(true);
    } finally {
      await w.close();
    }
  });
});

describe("readiness of the whole app", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterAll(async () => h?.stop());

  it("/readyz checks every worker of the process, weekly, reconcile, digest and alerts included", async () => {
    const res = await request(`${h.baseUrl}/readyz`);
    const body = (await res.body.json()) as { ok: boolean; checks: Record<string, string> };
    expect(res.statusCode).toBe(200);
    expect(Object.keys(body.checks).sort()).toEqual(
      [
        "redis",
        "worker:deliveries",
        "worker:enrich-refresh",
        "worker:slack-out",
        "worker:weekly",
        "worker:reconcile",
        "worker:digest",
        "worker:alerts",
      ].sort(),
    );
  });
});
