import express, { type Router } from "express";
import type { RedisClient as Redis } from "../store/redis.js";
import type { WorkerHealth } from "../jobs/worker-health.js";
import type { Metrics } from "../metrics.js";
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
    // Both run at once, each bounded: the answer comes within a second whatever Redis does.
    const [redis, probes] = await Promise.all([
      withTimeout(redisAnswers(opts.redis), 900, "Redis").then(
        () => undefined,
        (err: unknown) => (err instanceof Error ? err.message : "unreachable"),
      ),
      opts.workers
        ? withTimeout(opts.workers.probe(), 900, "worker probe").catch((err: unknown) => [
            { name: "probe", ok: false, reason: err instanceof Error ? err.message : "failed" },
          ])
        : [],
    ]);
    checks.redis = redis ?? "ok";
    let ok = redis === undefined;
    for (const p of probes) {
      checks[`worker:${p.name}`] = p.ok ? "ok" : (p.reason ?? "not ok");
      ok &&= p.ok;
    }
    res.status(ok ? 200 : 503).json({ ok, checks });
  });
  router.get("/metrics", async (_req, res) => {
    // Gauges keep their last values when Redis is slow or down: a scrape must not hang then.
    if (opts.refreshGauges) {
      await withTimeout(opts.refreshGauges(), 800, "queue gauges").catch(() => undefined); // last values stand
    }
    res.type(opts.metrics.registry.contentType).send(await opts.metrics.registry.metrics());
  });
  return router;
}
