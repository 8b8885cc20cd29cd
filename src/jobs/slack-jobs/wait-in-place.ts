import { setTimeout as sleep } from "node:timers/promises";

/**
 * A wait for a channel's turn this close is slept where it is: handing the job to Redis to come
 * back (moved to delayed, promoted, fetched and prepared again) costs more CPU than the wait,
 * and under a 429 every send of the channel waits about a second (Retry-After). A process
 * sleeping here and dying is a job retried after its lock expires, as for any crash.
 */
export const IN_PLACE_MAX_MS = 1_500;

/** Short waits for a channel's turn, slept in place by at most `cap` sends at once. */
export interface WaitInPlace {
  /** Sleeps until `untilMs` and answers true, or answers false at once: too far, or `cap` already sleep. */
  wait(untilMs: number, now: () => number): Promise<boolean>;
}

/**
 * One budget per worker: at most `cap` of its slots sleep, so the rest keep sending to other
 * channels while one channel waits out a 429 (the Slack worker's 48 slots with a cap of 40 keep 8).
 */
export function waitInPlace(o: { cap: number; maxMs?: number }): WaitInPlace {
  const maxMs = o.maxMs ?? IN_PLACE_MAX_MS;
  let sleeping = 0;
  return {
    async wait(untilMs, now) {
      const ms = untilMs - now();
      if (ms > maxMs || sleeping >= o.cap) return false;
      sleeping++;
      try {
        if (ms > 0) await sleep(ms);
      } finally {
        sleeping--;
      }
      return true;
    },
  };
}
