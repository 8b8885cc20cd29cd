import type { JobsOptions } from "bullmq";

/*
 * How long each queue keeps jobs and how it retries them: the one place retry lives (rule 7,
 * STYLE 15); the clients under the workers do not retry on their own.
 */

const keep = {
  removeOnComplete: { age: 3_600, count: 5_000 },
  removeOnFail: { age: 7 * 86_400, count: 5_000 },
};

export const JOB_DEFAULTS: Record<"deliveries" | "slack" | "refresh" | "weekly" | "digest", JobsOptions> = {
  deliveries: { attempts: 8, backoff: { type: "exponential", delay: 1_000, jitter: 0.5 }, ...keep },
  // Slack rate limits and the per-channel throttle delay jobs without spending attempts.
  // A Slack outage must not use up a digest's attempts: see `cappedBackoff`.
  slack: { attempts: 50, backoff: { type: "capped" }, ...keep },
  refresh: { attempts: 3, backoff: { type: "exponential", delay: 5_000 }, ...keep },
  // Retries wait for the Insight Service to come back; nothing is posted before a run can finish.
  weekly: {
    attempts: 3,
    backoff: { type: "exponential", delay: 60_000, jitter: 0.3 },
    removeOnComplete: { age: 14 * 86_400, count: 1_000 },
    removeOnFail: { age: 30 * 86_400, count: 1_000 },
  },
  // A flush is idempotent (digest/flush.ts): retries post nothing twice; Slack or a busy
  // channel lock waits a few minutes at most.
  digest: {
    attempts: 8,
    backoff: { type: "exponential", delay: 2_000, jitter: 0.3 },
    removeOnComplete: { age: 86_400, count: 2_000 },
    removeOnFail: { age: 7 * 86_400, count: 2_000 },
  },
};

/**
 * Exponential from 2 s, doubling up to 5 min, with ±25% jitter: 50 attempts outlast about
 * three hours of Slack failing (exponential without a cap gives up after half an hour, or
 * waits for days).
 */
export function cappedBackoff(attemptsMade: number, random: () => number = Math.random): number {
  const base = Math.min(2_000 * 2 ** Math.max(0, attemptsMade - 1), 300_000);
  return Math.round(base * (0.75 + random() * 0.5));
}
