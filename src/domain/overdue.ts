/*
 * Jobs that should have moved and did not (rules 8 and 11): the decision, pure. What one look
 * at a queue read goes in (jobs/overdue-jobs.ts reads it); which queues are overdue comes out.
 */

/** One look at a queue's head. */
export interface QueueHead {
  /** The queue's BullMQ name (one shard: `{slack-out-3}`). */
  queue: string;
  /** Jobs waiting for a worker (the wait list and the prioritized set). */
  waiting: number;
  /**
   * The jobs a worker takes next (the wait list's oldest, the prioritized set's first), as one
   * string: it changes whenever a worker takes a job. Undefined when nothing waits.
   */
  next: string | undefined;
  /** When the earliest delayed job was due (ms since the epoch); undefined when none is delayed. */
  delayedDueMs: number | undefined;
  /** Delayed jobs already due by more than the bound when the look was taken. */
  delayedLate: number;
}

/** A queue with jobs overdue by more than the bound. */
export interface OverdueQueue {
  queue: string;
  /** `delayed`: past their time and not moved to waiting; `waiting`: no worker took the next one. */
  state: "delayed" | "waiting";
  jobs: number;
  /** Delayed: how long the earliest is past its time; waiting: how long the next one has been next. */
  forMs: number;
}

/** What the looks remember: each queue's next waiting jobs, and since when they are next. */
export type OverdueMemory = ReadonlyMap<string, { next: string; sinceMs: number }>;

/** Overdue by more than this (ms): a minute, as long as a worker may sit idle with jobs waiting (jobs/worker-health.ts). */
export const OVERDUE_AFTER_MS = 60_000;

/**
 * Which queues are overdue. A delayed job is overdue once its time is more than `boundMs`
 * past: a worker promotes due jobs within milliseconds while its loop runs. Waiting jobs are
 * overdue when the same ones have been next for more than `boundMs`: a worker taking any job
 * changes them. A queue missing from `heads` (it could not be read) keeps what was remembered.
 */
export function judgeOverdue(
  prev: OverdueMemory,
  heads: readonly QueueHead[],
  nowMs: number,
  boundMs: number = OVERDUE_AFTER_MS,
): { memory: OverdueMemory; overdue: OverdueQueue[] } {
  const memory = new Map(prev);
  const overdue: OverdueQueue[] = [];
  for (const h of heads) {
    if (h.delayedDueMs !== undefined && nowMs - h.delayedDueMs > boundMs) {
      overdue.push({
        queue: h.queue,
        state: "delayed",
        jobs: Math.max(1, h.delayedLate),
        forMs: nowMs - h.delayedDueMs,
      });
    }
    const seen = memory.get(h.queue);
    if (h.next === undefined || h.waiting === 0) {
      memory.delete(h.queue);
    } else if (seen?.next !== h.next) {
      memory.set(h.queue, { next: h.next, sinceMs: nowMs });
    } else if (nowMs - seen.sinceMs > boundMs) {
      overdue.push({ queue: h.queue, state: "waiting", jobs: h.waiting, forMs: nowMs - seen.sinceMs });
    }
  }
  return { memory, overdue };
}
