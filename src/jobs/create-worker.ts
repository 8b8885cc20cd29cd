import { hostname } from "node:os";
import type { Processor, Queue, Worker, WorkerOptions } from "bullmq";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { idleLookSeconds } from "../store/idle-look.js";
import { createRedis, withTimeout, type RedisClient, type RedisTarget } from "../store/redis.js";
import { WorkerHealth } from "./worker-health.js";
import { QuietWorker } from "./lock-renewal.js";

/** Knobs tests turn; production uses BullMQ's defaults. */
export interface WorkerTuning {
  /** BullMQ lock duration: how soon a killed worker's job is picked up again. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** Readiness: see WorkerHealthOptions (tests shorten the idle threshold). */
  stuckAfterMs?: number;
  errorWindowMs?: number;
  /** How long a closing worker waits for its active jobs before it is forced (default 10 s). */
  closeGraceMs?: number;
  /** Jobs overdue by more than this make readiness fail (domain/overdue.ts; default a minute). */
  overdueAfterMs?: number;
}

/** One queue's worker, its processor resolved (the root's, which finds each job's workspace). */
export interface WorkerSpec {
  /** The BullMQ name of the queue (one shard). */
  queue: string;
  processor: Processor;
  concurrency: number;
  settings?: WorkerOptions["settings"];
}

export interface WorkerContext {
  redisUrl: string;
  /** Set: the workers' connection is a cluster one (REDIS_CLUSTER_NODES). */
  clusterNodes?: RedisTarget["clusterNodes"];
  prefix: string;
  logger: Logger;
  metrics: Pick<Metrics, "jobs">;
  tuning?: WorkerTuning;
}

/**
 * Closes a worker, letting its active jobs finish for a while (default 10 s), then gives up
 * on it: a job cut short is picked up again once its lock expires, as after a killed worker,
 * and the caller closes the connection. Forcing BullMQ's close then does nothing more (it
 * gives back the close already under way). A close that never returned was seen after a Redis
 * Cluster failover: it waits for the worker's loop, which waited for a reconnect ioredis never
 * settled (store/redis.ts, BLOCKING_FETCH, and test/cluster/blocking-fetch.test.ts, where a
 * worker without it cannot close).
 */
async function closeWorker(worker: Worker, logger: Logger, graceMs = 10_000): Promise<void> {
  await withTimeout(worker.close(), graceMs, `worker ${worker.name} closing`).catch((err: unknown) =>
    logger.warn({ err, queue: worker.name }, "worker did not close in time; left to the connection's close"),
  );
}

/**
 * The one way a queue's worker is made: over `connection` (a `blocking`-kind one, which BullMQ
 * duplicates for the worker's blocking fetch), the prefix, the tuning, a `jobs` count per
 * outcome, and a log line per failed job (job id, attempts, the error with its stack) and per
 * worker error.
 */
function createWorker(spec: WorkerSpec, ctx: WorkerContext, connection: RedisClient): Worker {
  const { logger, metrics, tuning = {} } = ctx;
  const worker = new QuietWorker(spec.queue, spec.processor, {
    connection,
    drainDelay: idleLookSeconds(connection),
    prefix: ctx.prefix,
    // Who processed a job (BullMQ keeps it with the job: the admin page, tests).
    name: `${hostname()}:${process.pid}`,
    concurrency: spec.concurrency,
    ...(spec.settings ? { settings: spec.settings } : {}),
    ...(tuning.lockDurationMs ? { lockDuration: tuning.lockDurationMs } : {}),
    ...(tuning.stalledIntervalMs ? { stalledInterval: tuning.stalledIntervalMs } : {}),
  });
  worker.on("failed", (job, err) => {
    metrics.jobs.inc({ queue: spec.queue, outcome: "failed" });
    logger.warn({ queue: spec.queue, jobId: job?.id, attempts: job?.attemptsMade, err }, "job failed");
  });
  worker.on("completed", () => metrics.jobs.inc({ queue: spec.queue, outcome: "completed" }));
  worker.on("error", (err) => logger.warn({ queue: spec.queue, err }, "worker error"));
  return worker;
}

export interface StartedWorkers {
  workers: Worker[];
  /** Readiness (rule 8) over every worker started here. */
  health: WorkerHealth;
  close(): Promise<void>;
}

/**
 * Starts each worker through `createWorker` and watches them all for readiness. The workers
 * share one connection for their own commands (BullMQ leaves a connection it is given open)
 * and each has its blocking duplicate: N + 1 connections instead of 2N, each holding BullMQ's
 * Lua scripts (idle heap, and connections that grow with queue shards).
 */
export function startWorkers(
  specs: readonly WorkerSpec[],
  ctx: WorkerContext,
  queueOf: (name: string) => Queue | undefined,
): StartedWorkers {
  const wired = specs.map((spec) => {
    // A getter: the registry may have replaced a queue whose set-up failed.
    const queue = (): Queue => {
      const q = queueOf(spec.queue);
      if (!q) throw new Error(`no queue named ${spec.queue}`);
      return q;
    };
    queue(); // a worker of a queue the app does not have is a wiring mistake: fail at start
    return { spec, queue };
  });
  // Not auto-pipelined: each auto-pipeline copies every script BullMQ defined on the
  // connection, which cost as much CPU as the writes it saved (measured with bench:pipeline; docs/performance.md).
  const connection = createRedis(
    { url: ctx.redisUrl, clusterNodes: ctx.clusterNodes },
    "blocking",
    ctx.logger,
  );
  const entries = wired.map(({ spec, queue }) => ({
    worker: createWorker(spec, ctx, connection),
    connection,
    queue,
  }));
  const workers = entries.map((e) => e.worker);
  return {
    workers,
    health: new WorkerHealth(entries, {
      ...(ctx.tuning?.stuckAfterMs ? { stuckAfterMs: ctx.tuning.stuckAfterMs } : {}),
      ...(ctx.tuning?.errorWindowMs ? { errorWindowMs: ctx.tuning.errorWindowMs } : {}),
    }),
    close: async () => {
      try {
        await Promise.all(workers.map((w) => closeWorker(w, ctx.logger, ctx.tuning?.closeGraceMs)));
      } finally {
        connection.disconnect(); // it would reconnect forever
      }
    },
  };
}
