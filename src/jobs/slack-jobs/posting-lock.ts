import { tryLock } from "../../store/lock.js";
import type { SlackAttempt } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";

/**
 * The posting lock of one thread's card in one channel: a digest post or edit and a card edit
 * never run at once for the same card. Undefined when another job holds it (see `comeBackSoon`).
 */
export function tryPostingLock(
  deps: Pick<SlackJobDeps, "redis" | "keys" | "lockTtlMs">,
  channel: string,
  threadId: string,
): Promise<(() => Promise<void>) | undefined> {
  return tryLock(deps.redis, deps.keys.lock(`digest:${channel}:${threadId}`), deps.lockTtlMs ?? 15_000);
}

/** Another job is posting this card right now: this attempt comes back shortly (never returns). */
export function comeBackSoon(attempt: SlackAttempt, now: () => number): Promise<never> {
  return attempt.deferUntil(now() + 300 + Math.random() * 400);
}
