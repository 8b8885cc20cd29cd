import type { Queue } from "bullmq";
import { isCluster, withTimeout, type RedisClient } from "./redis.js";

/** After a restart, first posts of older enrichments look in Slack for this long. */
export const RECOVERY_MS = 15 * 60_000;
/** Clock differences between Redis, this process, the service and Slack. */
const SKEW_MS = 5_000;

interface Run {
  /** When the Redis process now serving started, at the earliest (ms since the epoch). */
  startedAtMs: number;
  /** Writes after this may be gone; undefined when it has been up for longer than RECOVERY_MS. */
  lossPointMs: number | undefined;
}

/**
 * What a Redis restart may have lost, for the digest path (jobs/slack-out.ts). With the
 * append-only file fsync'ed every second (docker-compose), a crash of the machine loses what
 * Redis took in its last second: a digest posted then loses its record (the card's ts and the
 * posting mark), its job runs again, and without this would post the card a second time.
 * The file is a log that loses a suffix, so everything written before the newest surviving
 * BullMQ event is there; a first post of an enrichment older than the restart searches Slack
 * for its card from that point on (one conversations.history call, only in the quarter of an
 * hour after a restart). On a Redis Cluster a failover loses the replication lag instead (a
 * few milliseconds); this looks at one Redis only.
 */
export class RedisRestarts {
  private run: Promise<Run | undefined> | undefined;

  constructor(
    private readonly deps: {
      redis: RedisClient;
      /** The queues whose event streams tell what survived (a getter: see `healingQueue`). */
      queues: () => readonly Pick<Queue, "keys">[];
      now?: () => number;
    },
  ) {
    // A restart drops every connection: the next question reads the new run.
    deps.redis.on("close", () => {
      this.run = undefined;
    });
  }

  /**
   * Where a first post of an enrichment made at `enrichedAtMs` should look in Slack for an
   * earlier post of itself: undefined when nothing it could have posted was lost.
   */
  async lookBackSince(enrichedAtMs: number): Promise<number | undefined> {
    if (isCluster(this.deps.redis)) return undefined;
    const now = (this.deps.now ?? Date.now)();
    const run = await (this.run ??= this.readRun().catch(() => {
      this.run = undefined;
      return undefined;
    }));
    if (!run || run.lossPointMs === undefined) return undefined;
    if (now - run.startedAtMs > RECOVERY_MS) return undefined;
    // Enriched since the restart: it could not have been posted before it.
    if (enrichedAtMs > run.startedAtMs + SKEW_MS) return undefined;
    return run.lossPointMs - SKEW_MS;
  }

  private async readRun(): Promise<Run> {
    const { redis } = this.deps;
    const info = String(await withTimeout(redis.info("server"), 2_000, "Redis"));
    const uptime = Number(/uptime_in_seconds:(\d+)/.exec(info)?.[1] ?? NaN);
    if (Number.isNaN(uptime)) throw new Error("INFO server without uptime_in_seconds");
    // Whole seconds: the earliest it can have started (an event after it is surely of this run).
    const startedAtMs = (this.deps.now ?? Date.now)() - (uptime + 1) * 1_000;
    // Long up: nothing to look for, and no need to read the streams.
    if (uptime * 1_000 > RECOVERY_MS) return { startedAtMs, lossPointMs: undefined };
    const newest = await Promise.all(
      this.deps.queues().map(async (q) => {
        const events = q.keys.events;
        if (!events) return 0;
        const r = (await withTimeout(
          redis.xrevrange(events, String(Math.floor(startedAtMs) - 1), "-", "COUNT", 1),
          2_000,
          "Redis",
        )) as [string, string[]][];
        return Number(r[0]?.[0]?.split("-")[0] ?? 0);
      }),
    );
    const lossPointMs = Math.max(0, ...newest);
    // No event before the start: a new Redis, or one back within a second (its last events are
    // then after `startedAtMs`): look from a second before it, which covers both.
    return { startedAtMs, lossPointMs: lossPointMs > 0 ? lossPointMs : startedAtMs - 1_000 };
  }
}
