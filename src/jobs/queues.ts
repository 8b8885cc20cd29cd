import { Queue, type JobsOptions } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "../log.js";
import { healingQueue } from "./healing-queue.js";
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
 * Producer side of every queue, sharing one connection (for the receiver, a fail-fast one: a
 * producer that cannot reach Redis must say so at once, so the receiver can spool instead of
 * hanging). Each queue heals itself if its set-up failed (see `healingQueue`).
 */
export function createQueues(connection: Redis, prefix: string, logger?: Logger): Queues {
  const make = <T>(name: QueueName, defaultJobOptions: JobsOptions) =>
    healingQueue(
      () => new Queue<T>(name, { connection, prefix, defaultJobOptions }),
      (err) => logger?.warn({ queue: name, err: String(err) }, "queue set-up had failed; made it again"),
    );
  const deliveries = make<DeliveryJob>(QUEUE_NAMES.deliveries, JOB_DEFAULTS.deliveries);
  const slack = make<SlackJob>(QUEUE_NAMES.slack, JOB_DEFAULTS.slack);
  const refresh = make<RefreshJob>(QUEUE_NAMES.refresh, JOB_DEFAULTS.refresh);
  return {
    get deliveries() {
      return deliveries();
    },
    get slack() {
      return slack();
    },
    get refresh() {
      return refresh();
    },
    close: async () => {
      await Promise.all([deliveries.close(), slack.close(), refresh.close()]);
    },
  };
}

/** Job ids may not contain ':' in BullMQ (it is the key separator). */
export const jobId = (...parts: (string | number)[]) =>
  parts.map((p) => String(p).replace(/:/g, "_")).join("|");
