/**
 * Retry arithmetic for the Insight client, kept pure so it is tested without waiting.
 *
 * Why not undici's RetryAgent/RetryHandler: it honours Retry-After, but has no jitter, no bound
 * on the total time, sleeps on its own timers (tests could not inject them), and retries below
 * the level where each attempt is counted in metrics and mapped to a typed error. A loop in the
 * client over these functions does all of that in a few lines.
 */

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  maxAttempts: number;
  /** Backoff cap of the first retry; doubled for each later one. */
  baseDelayMs: number;
  /** Cap of one backoff delay (a longer Retry-After is still honoured). */
  maxDelayMs: number;
  /** Bound on the whole call: time spent in attempts plus time spent waiting. */
  maxTotalMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxTotalMs: 30_000,
};

/**
 * A Retry-After header in milliseconds: delta-seconds or an HTTP date (relative to `nowMs`).
 * Undefined when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  // Only dates with a weekday or month name: Date.parse would read "12" or "-5" as a year.
  if (!/[A-Za-z]/.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/**
 * Full-jitter exponential backoff (a uniform wait between 0 and the capped exponential), the
 * variant that spreads competing clients best. `retry` is 1 for the first retry.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.floor(r * cap);
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: "not_retryable" | "attempts" | "budget"; retryAfterMs?: number };

/**
 * Whether to try again after failed attempt number `attempt`, and after how long. A Retry-After
 * is a floor on the wait; a wait that would not leave time for another attempt within the total
 * budget ends the call now, reporting the Retry-After so a person can be told when to retry.
 */
export function decideRetry(input: {
  attempt: number;
  maxAttempts: number;
  retryable: boolean;
  retryAfterMs: number | undefined;
  spentMs: number;
  policy: RetryPolicy;
  random: () => number;
}): RetryDecision {
  const { attempt, retryAfterMs } = input;
  const after = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (!input.retryable) return { retry: false, reason: "not_retryable", ...after };
  if (attempt >= input.maxAttempts) return { retry: false, reason: "attempts", ...after };
  const backoff = backoffDelay(attempt, input.policy, input.random);
  const delayMs = retryAfterMs === undefined ? backoff : Math.max(retryAfterMs, backoff);
  const remaining = input.policy.maxTotalMs - input.spentMs;
  if (delayMs >= remaining) return { retry: false, reason: "budget", ...after };
  return { retry: true, delayMs };
}
