import express, { type Router } from "express";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";
import type { RedisClient as Redis } from "../store/redis.js";
import type { OverdueJobs } from "../jobs/overdue-jobs.js";
import type { WorkerHealth } from "../jobs/worker-health.js";
import type { Metrics } from "../metrics.js";
import { overdueText } from "../slack/render/overdue-text.js";
import { isCluster, withTimeout } from "../store/redis.js";

/**
 * Whether Redis answers. On a cluster any node answers PING, even while the cluster refuses
 * every command (a master down, no replica promoted yet): ask for the cluster's own state.
 */
async function redisAnswers(redis: Redis): Promise<void> {
  if (!isCluster(redis)) {
    await redis.ping();
    return;
  }
  const info = String(await redis.call("CLUSTER", "INFO"));
  const state = /cluster_state:(\w+)/.exec(info)?.[1] ?? "unknown";
  if (state !== "ok") throw new Error(`Redis Cluster state is ${state}`);
}

/**
 * /healthz (the process runs), /readyz (Redis answers and workers process: none of the jobs of
 * the queues they consume is overdue), /metrics.
 */
export function healthRouter(opts: {
  redis: Redis;
  metrics: Metrics;
  workers?: Pick<WorkerHealth, "probe" | "queueNames"> | undefined;
  /** Jobs that should have moved and did not (jobs/overdue-jobs.ts); it also sets their gauge. */
  overdue?: Pick<OverdueJobs, "look"> | undefined;
  refreshGauges?: () => Promise<void>;
  /** The metrics of the process's other thread (its roles thread), summed with this registry's. */
  moreMetrics?: () => Promise<MetricObjectWithValues<MetricValue<string>>[]>;
}): Router {
  const router = express.Router();
  router.get("/healthz", (_req, res) => {
    res.status(200).json({ ok: true });
  });
  router.get("/readyz", async (_req, res) => {
    const checks: Record<string, string> = {};
    // A process without workers is ready to receive whatever the workers do (rule 1 first).
    const consumed = new Set(opts.workers?.queueNames() ?? []);
    // All run at once, each bounded: the answer comes within a second whatever Redis does.
    const [redis, probes, overdue] = await Promise.all([
      withTimeout(redisAnswers(opts.redis), 900, "Redis").then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err.message : "unreachable"),
      ),
      opts.workers
        ? withTimeout(opts.workers.probe(), 900, "worker probe").catch((err: unknown) => [
            { name: "probe", ok: false, reason: err instanceof Error ? err.message : "failed" },
          ])
        : [],
      // Unreadable: the Redis check says why.
      opts.overdue && consumed.size > 0
        ? withTimeout(opts.overdue.look(), 900, "overdue jobs").catch(() => undefined)
        : undefined,
    ]);
    checks.redis = redis ?? "ok";
    let ok = redis === undefined;
    for (const p of probes) {
      checks[`worker:${p.name}`] = p.ok ? "ok" : (p.reason ?? "not ok");
      ok &&= p.ok;
    }
    for (const o of overdue ?? []) {
      if (!consumed.has(o.queue)) continue;
      const key = `jobs:${o.queue}`;
      checks[key] = checks[key] ? `${checks[key]}; ${overdueText(o)}` : overdueText(o);
      ok = false;
    }
    res.status(ok ? 200 : 503).json({ ok, checks });
  });
  router.get("/metrics", async (_req, res) => {
    // Gauges keep their last values when Redis is slow or down: a scrape must not hang then.
    if (opts.refreshGauges || opts.overdue) {
      await withTimeout(
        Promise.all([opts.refreshGauges?.(), opts.overdue?.look()]),
        800,
        "queue gauges",
      ).catch(() => undefined); // last values stand
    }
    const { registry } = opts.metrics;
    if (!opts.moreMetrics) {
      res.type(registry.contentType).send(await registry.metrics());
      return;
    }
    // Counters and histograms of both threads are summed, as prom-client sums a cluster's
    // workers; a thread that does not answer leaves its part out of this scrape.
    const more = await opts.moreMetrics().catch(() => []);
    const merged = AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), more]);
    res.type(registry.contentType).send(await merged.metrics());
  });
  return router;
}
