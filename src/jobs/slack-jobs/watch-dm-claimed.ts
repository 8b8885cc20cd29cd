import type { SlackAttempt } from "./attempt.js";

/**
 * The person's DM of the thread is being sent by another job (claimed in store/watch-dms.ts):
 * this one comes back in a few seconds, by when it is there to edit. A send that died leaves its
 * claim for CLAIM_STALE_MS, so the wait is not a tight loop (never returns).
 */
export function comeBackLater(attempt: SlackAttempt, now: () => number): Promise<never> {
  return attempt.deferUntil(now() + 4_000 + Math.random() * 2_000);
}
