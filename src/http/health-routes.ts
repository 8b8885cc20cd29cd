import express, { type Router } from "express";
import type { RedisClient as Redis } from "../store/redis.js";
import type { WorkerHealth } from "../jobs/worker-health.js";
import type { Metrics } from "../metrics.js";
import { withTimeout } from "../store/redis.js";

/** /healthz (the process runs), /readyz (Redis answers and workers process), /metrics. */
export function healthRouter(opts: {
  redis: Redis;
  metrics: Metrics;
  workers?: WorkerHealth | undefined;
  refreshGauges?: () => Promise<void>;
}): Router {
  const router = express.Router();
  router.get("/healthz", (_req, res) => {
    res.status(200).json({ ok: true });
  });
  router.get("/readyz", async (_req, res) => {
    const checks: Record<string, string> = {};
    let ok = true;
    try {
      await withTimeout(opts.redis.ping(), 1_000, "Redis");
      checks.redis = "ok";
    } catch (err) {
      ok = false;
      checks.redis = err instanceof Error ? err.message : "unreachable";
    }
    for (const p of (await opts.workers?.probe().catch(() => [])) ?? []) {
      checks[`worker:${p.name}`] = p.ok ? "ok" : (p.reason ?? "not ok");
      ok &&= p.ok;
    }
    res.status(ok ? 200 : 503).json({ ok, checks });
  });
  router.get("/metrics", async (_req, res) => {
    // Gauges keep their last values when Redis is slow or down: a scrape must not hang then.
    if (opts.refreshGauges) {
      await withTimeout(opts.refreshGauges(), 1_000, "queue gauges").catch(() => undefined); // last values stand
    }
    res.type(opts.metrics.registry.contentType).send(await opts.metrics.registry.metrics());
  });
  return router;
}
