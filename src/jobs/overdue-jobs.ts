import type { Queue } from "bullmq";
import type { Gauge } from "prom-client";
import {
  judgeOverdue,
  OVERDUE_AFTER_MS,
  type OverdueMemory,
  type OverdueQueue,
  type QueueHead,
} from "../domain/overdue.js";
import { luaScript } from "../store/lua-script.js";
import { withTimeout, type RedisClient } from "../store/redis.js";

export type { OverdueQueue } from "../domain/overdue.js";

// One queue's head in one call (its keys share a slot): the wait list's oldest (a worker takes
// from the right) and length, the prioritized set's first and size, the earliest delayed job's
// score and how many are due before ARGV[1] (a score: BullMQ keeps a delayed job at its due
// time in ms times 0x1000, plus an order counter). KEYS: wait, prioritized, delayed.
const QUEUE_HEAD = luaScript(`
local oldest = redis.call('LINDEX', KEYS[1], -1) or ''
local top = redis.call('ZRANGE', KEYS[2], 0, 0)[1] or ''
local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')[2] or ''
return {oldest, redis.call('LLEN', KEYS[1]), top, redis.call('ZCARD', KEYS[2]), first,
  redis.call('ZCOUNT', KEYS[3], 0, ARGV[1])}
`);

/** Reads one queue's head: what `judgeOverdue` decides on. */
export async function readQueueHead(
  redis: RedisClient,
  queue: Pick<Queue, "name" | "keys">,
  cutoffMs: number,
): Promise<QueueHead> {
  const { wait, prioritized, delayed } = queue.keys;
  const cutoff = String((Math.floor(cutoffMs) + 1) * 0x1000 - 1);
  const r = (await QUEUE_HEAD.run(redis, 3, wait ?? "", prioritized ?? "", delayed ?? "", cutoff)) as [
    string,
    number,
    string,
    number,
    string,
    number,
  ];
  const [oldest, waitLength, top, prioritizedSize, firstScore, late] = r;
  const waiting = Number(waitLength) + Number(prioritizedSize);
  return {
    queue: queue.name,
    waiting,
    next: waiting > 0 ? `${oldest}|${top}` : undefined,
    delayedDueMs: firstScore ? Math.floor(Number(firstScore) / 0x1000) : undefined,
    delayedLate: Number(late),
  };
}

/** What the overdue look uses. */
export interface OverdueDeps {
  /** Any connection of the app (one script a queue). */
  redis: RedisClient;
  /** Every queue to look at (a getter: queues may be replaced, see `healingQueue`). */
  queues: () => readonly Pick<Queue, "name" | "keys">[];
  /** Set at each look: overdue jobs per queue and state, 0 when none (/metrics). */
  gauge?: Pick<Gauge<"queue" | "state">, "set">;
}

export interface OverdueOptions {
  /** Overdue by more than this; default OVERDUE_AFTER_MS (tests shorten it). */
  boundMs?: number;
  /** Bound of each queue's read: a look answers whatever Redis does. Default 500 ms. */
  redisTimeoutMs?: number;
  now?: () => number;
}

/**
 * Looks for jobs that should have moved and did not, in every queue: delayed jobs past their
 * time (no worker loop promotes them) and waiting jobs no worker takes. Readiness, the health
 * watch, status and /metrics all ask it; it remembers each queue's next waiting jobs between
 * looks, since a waiting job does not say when it started to wait. Looks asked for while one
 * is under way share it.
 */
export class OverdueJobs {
  private memory: OverdueMemory = new Map();
  private current: Promise<OverdueQueue[] | undefined> | undefined;
  private readonly boundMs: number;
  private readonly redisTimeoutMs: number;
  private readonly now: () => number;

  constructor(
    private readonly deps: OverdueDeps,
    o: OverdueOptions = {},
  ) {
    this.boundMs = o.boundMs ?? OVERDUE_AFTER_MS;
    this.redisTimeoutMs = o.redisTimeoutMs ?? 500;
    this.now = o.now ?? Date.now;
  }

  /** The overdue queues now; undefined when no queue could be read (Redis speaks for itself then). */
  look(): Promise<OverdueQueue[] | undefined> {
    this.current ??= this.lookOnce().finally(() => (this.current = undefined));
    return this.current;
  }

  private async lookOnce(): Promise<OverdueQueue[] | undefined> {
    const queues = this.deps.queues();
    const cutoffMs = this.now() - this.boundMs;
    const read = await Promise.all(
      queues.map((q) =>
        withTimeout(readQueueHead(this.deps.redis, q, cutoffMs), this.redisTimeoutMs, "Redis").catch(
          () => undefined,
        ),
      ),
    );
    const heads = read.filter((h): h is QueueHead => h !== undefined);
    if (queues.length > 0 && heads.length === 0) return undefined;
    const judged = judgeOverdue(this.memory, heads, this.now(), this.boundMs);
    this.memory = judged.memory;
    for (const h of heads) {
      for (const state of ["delayed", "waiting"] as const) {
        const o = judged.overdue.find((x) => x.queue === h.queue && x.state === state);
        this.deps.gauge?.set({ queue: h.queue, state }, o?.jobs ?? 0);
      }
    }
    return judged.overdue;
  }
}
