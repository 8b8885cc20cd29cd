import type { Queue, Worker } from "bullmq";
import { withTimeout } from "../store/redis.js";

export interface WorkerProbe {
  name: string;
  ok: boolean;
  reason?: string;
}

export interface WorkerHealthOptions {
  /** A queue with jobs waiting and none started for this long counts as stopped. Default 60 s. */
  stuckAfterMs?: number;
  /**
   * How long a worker error (a failed fetch: CROSSSLOT, NOSCRIPT, READONLY, OOM, auth...) keeps
   * the worker not ready when nothing succeeds after it. A fetch that keeps failing is tried
   * again every 15 s (BullMQ's runRetryDelay), which renews it; a worker of a quiet queue has no
   * success to show once its fetch works again, so this is also how long readiness lags after
   * the cause is gone (Redis out of memory: back about 20 s after memory is freed). Default 20 s.
   */
  errorWindowMs?: number;
  /** Bound of each Redis call of a probe: readiness answers whatever Redis does. Default 500 ms. */
  redisTimeoutMs?: number;
  now?: () => number;
}

/**
 * Errors that end with their cause, counted for 2 s only: a lost link (it ends once the link is
 * back), and what a failover leaves behind once (a blocked fetch unblocked as its master becomes
 * a replica, a lock that could not be renewed meanwhile, the cluster down, a Redis loading its
 * data). Counted for the whole error window, they kept readiness 503 for 15 s after a failover
 * where nothing was wrong any more.
 */
const TRANSIENT_ERROR =
  /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|Connection is closed|connect |UNBLOCKED|could not renew lock|CLUSTERDOWN|LOADING/i;

interface Entry {
  worker: Worker;
  queue: () => Queue;
  /** The workers' shared connection: a worker cut off from Redis says nothing itself (BullMQ keeps connection errors quiet). */
  connection?: { status: string; on?(event: "ready", listener: () => void): unknown };
}

/**
 * Whether workers are actually processing (rules 8 and 11): a worker object that says
 * "running" can still sit idle after a Redis reconnect, lose its connection, or fail every
 * fetch (CROSSSLOT on a cluster). Each of those makes the probe say not ok, with the reason.
 */
export class WorkerHealth {
  private readonly lastActive = new Map<string, number>();
  private readonly failing = new Map<string, { at: number; message: string }>();
  private readonly stuckAfterMs: number;
  private readonly errorWindowMs: number;
  private readonly redisTimeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly entries: Entry[],
    o: WorkerHealthOptions = {},
  ) {
    this.stuckAfterMs = o.stuckAfterMs ?? 60_000;
    this.errorWindowMs = o.errorWindowMs ?? 20_000;
    this.redisTimeoutMs = o.redisTimeoutMs ?? 500;
    this.now = o.now ?? Date.now;
    for (const { worker } of entries) {
      this.lastActive.set(worker.name, this.now());
      const touch = () => {
        this.lastActive.set(worker.name, this.now());
        this.failing.delete(worker.name);
      };
      worker.on("active", touch);
      worker.on("completed", touch);
      worker.on("failed", touch);
      worker.on("drained", touch);
      worker.on("error", (err: Error) =>
        this.failing.set(worker.name, { at: this.now(), message: err.message }),
      );
    }
  }

  /** The queues (BullMQ names) these workers consume: readiness answers for their jobs too. */
  queueNames(): string[] {
    return this.entries.map((e) => e.worker.name);
  }

  async probe(): Promise<WorkerProbe[]> {
    return Promise.all(
      this.entries.map(async ({ worker, queue, connection }): Promise<WorkerProbe> => {
        const name = worker.name;
        if (!worker.isRunning()) return { name, ok: false, reason: "not running" };
        if (worker.isPaused()) return { name, ok: false, reason: "paused" };
        if (connection && connection.status !== "ready" && connection.status !== "connect") {
          return { name, ok: false, reason: `no Redis connection (${connection.status})` };
        }
        const failed = this.failing.get(name);
        // A transient error (a link lost, ours or BullMQ's blocking duplicate's) is over once 2 s old.
        const over = failed && TRANSIENT_ERROR.test(failed.message) && this.now() - failed.at > 2_000;
        if (failed && !over && this.now() - failed.at < this.errorWindowMs) {
          return { name, ok: false, reason: `fetching jobs fails: ${failed.message}` };
        }
        const idleMs = this.now() - (this.lastActive.get(name) ?? 0);
        if (idleMs > this.stuckAfterMs) {
          let waiting: number;
          try {
            // Jobs with a priority (fair turns across workspaces) wait in their own set.
            waiting = await withTimeout(
              queue().getJobCountByTypes("waiting", "prioritized"),
              this.redisTimeoutMs,
              "Redis",
            );
          } catch (err) {
            return { name, ok: false, reason: err instanceof Error ? err.message : "Redis unreachable" };
          }
          if (waiting > 0) {
            return {
              name,
              ok: false,
              reason: `${waiting} jobs waiting, none started for ${Math.round(idleMs / 1000)} s`,
            };
          }
        }
        return { name, ok: true };
      }),
    );
  }
}
