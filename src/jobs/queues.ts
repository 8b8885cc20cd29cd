import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { WebhookEvent, ThreadEvent } from "../insight/schemas.js";
import type { ThreadDigest } from "../insights/thread-digest.js";

export const QUEUE_NAMES = {
  deliveries: "deliveries",
  slack: "slack-out",
  refresh: "enrich-refresh",
  weekly: "weekly",
  reconcile: "reconcile",
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** A webhook delivery, as recorded by the receiver. */
export interface DeliveryJob {
  deliveryId: string;
  receivedAt: string;
  event: WebhookEvent;
}

/** One Slack effect. Digests carry the domain object; rendering happens at send time. */
export type SlackJob =
  | {
      kind: "digest";
      channelId: string;
      digest: ThreadDigest;
      enrichedAtMs: number;
      /** Set when the job was delayed to a reserved per-channel slot. */
      slotAt?: number;
    }
  | { kind: "notice"; channelId: string; text: string; slotAt?: number };

/** A later look at the listing for a thread whose digest went out without sentiment. */
export interface RefreshJob {
  event: ThreadEvent;
  attempt: number;
}

const keep = {
  removeOnComplete: { age: 3_600, count: 5_000 },
  removeOnFail: { age: 7 * 86_400, count: 5_000 },
};

export const JOB_DEFAULTS: Record<"deliveries" | "slack" | "refresh", JobsOptions> = {
  deliveries: { attempts: 8, backoff: { type: "exponential", delay: 1_000, jitter: 0.5 }, ...keep },
  // Slack rate limits and the per-channel throttle delay jobs without spending attempts.
  // A Slack outage must not use up a digest's attempts: see `cappedBackoff`.
  slack: { attempts: 50, backoff: { type: "capped" }, ...keep },
  refresh: { attempts: 3, backoff: { type: "exponential", delay: 5_000 }, ...keep },
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

export interface Queues {
  deliveries: Queue<DeliveryJob>;
  slack: Queue<SlackJob>;
  refresh: Queue<RefreshJob>;
  close(): Promise<void>;
}

/**
 * Producer side of every queue, sharing one fail-fast connection: a producer that cannot
 * reach Redis must say so at once, so the receiver can spool instead of hanging.
 */
export function createQueues(connection: Redis, prefix: string): Queues {
  const deliveries = new Queue<DeliveryJob>(QUEUE_NAMES.deliveries, {
    connection,
    prefix,
    defaultJobOptions: JOB_DEFAULTS.deliveries,
  });
  const slack = new Queue<SlackJob>(QUEUE_NAMES.slack, {
    connection,
    prefix,
    defaultJobOptions: JOB_DEFAULTS.slack,
  });
  const refresh = new Queue<RefreshJob>(QUEUE_NAMES.refresh, {
    connection,
    prefix,
    defaultJobOptions: JOB_DEFAULTS.refresh,
  });
  for (const q of [deliveries, slack, refresh]) q.on("error", () => undefined); // logged by the connection
  return {
    deliveries,
    slack,
    refresh,
    close: async () => {
      await Promise.all([deliveries.close(), slack.close(), refresh.close()]);
    },
  };
}

/** Job ids may not contain ':' in BullMQ (it is the key separator). */
export const jobId = (...parts: (string | number)[]) =>
  parts.map((p) => String(p).replace(/:/g, "_")).join("|");
