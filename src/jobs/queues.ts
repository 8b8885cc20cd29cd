import { Queue, type JobsOptions } from "bullmq";
import type { RedisClient as Redis } from "../store/redis.js";
import type { Logger } from "../log.js";
import { healingQueue, type HealingQueue } from "./healing-queue.js";
import type { WebhookEvent, ThreadEvent } from "../insight/schemas.js";
import type { ThreadDigest } from "../domain/thread-digest.js";
import type { DigestEvery } from "../domain/subscription.js";

export const QUEUE_NAMES = {
  deliveries: "deliveries",
  slack: "slack-out",
  refresh: "enrich-refresh",
  weekly: "weekly",
  reconcile: "reconcile",
  digest: "digest",
  alerts: "alerts",
} as const;
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** A webhook delivery, as recorded by the receiver. */
export interface DeliveryJob {
  deliveryId: string;
  receivedAt: string;
  event: WebhookEvent;
}

/**
 * One Slack effect. Digests carry the domain object; rendering happens at send time. Cards,
 * replies and DMs carry only ids: what they show is read when their turn comes.
 */
export type SlackJob =
  | {
      kind: "digest";
      channelId: string;
      digest: ThreadDigest;
      enrichedAtMs: number;
      /** The thread left this channel's filters: edit the card if there is one, never post (rule 10). */
      noLongerMatches?: boolean;
      /** Set when the job was delayed to a reserved per-channel slot. */
      slotAt?: number;
    }
  | {
      kind: "card";
      channelId: string;
      threadId: string;
      /** `triage`: a button changed it; `counts`: new messages arrived (counts read from the listing). */
      reason: "triage" | "counts";
      slotAt?: number;
    }
  | { kind: "replies"; channelId: string; threadId: string; slotAt?: number }
  | {
      kind: "dm";
      /** The throttle's key: the user's DM, one slot a second like a channel. */
      channelId: string;
      userId: string;
      text: string;
      /** The card the DM links to (its permalink is asked for at send time). */
      card?: { channel: string; ts: string };
      slotAt?: number;
    }
  | { kind: "notice"; channelId: string; text: string; slotAt?: number };

/** A later look at the listing for a thread whose digest went out without sentiment. */
export interface RefreshJob {
  event: ThreadEvent;
  attempt: number;
}

/** A job of the `weekly` queue: one channel's summary. */
export interface WeeklyJob {
  channelId: string;
  trigger: "schedule" | "now";
  /** The zone dates are shown in (and a scheduled run's week is named in). */
  timeZone: string;
  requestedBy?: string;
}

/** A job of the `reconcile` queue: one pass over every followed group; it carries nothing. */
export type ReconcileJob = Record<string, never>;

/** A job of the `digest` queue: flush one channel's pending digest (a period's end, or `digest now`). */
export interface DigestJob {
  channelId: string;
  trigger: "schedule" | "now";
  /** The period a scheduled job flushes (the subscriptions in digest mode with this `every`). */
  every?: DigestEvery;
  /** The zone the scheduler fires in; a change of the channel's zone re-makes the scheduler. */
  timeZone?: string;
  requestedBy?: string;
}

/** A job of the `alerts` queue: one evaluation of every channel's alerts; it carries nothing. */
export type AlertsJob = Record<string, never>;

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

/**
 * Every queue of the app, built once over one connection: the producers of each feature, and
 * what reads them all (status, /metrics, the admin page). Getters, because a queue whose
 * set-up failed is replaced on its next use (see `healingQueue`): call them at each use.
 */
export interface Queues {
  readonly deliveries: Queue<DeliveryJob>;
  readonly slack: Queue<SlackJob>;
  readonly refresh: Queue<RefreshJob>;
  readonly weekly: Queue<WeeklyJob>;
  readonly reconcile: Queue<ReconcileJob>;
  readonly digest: Queue<DigestJob>;
  readonly alerts: Queue<AlertsJob>;
  /** The queue of that name, or undefined when the app has none. */
  byName(name: string): Queue | undefined;
  /** Every queue, in QUEUE_NAMES order. */
  all(): Queue[];
  close(): Promise<void>;
}

/** One healing queue; the receiver builds its deliveries producer with it too. */
export function makeQueue<T>(
  connection: Redis,
  prefix: string,
  name: QueueName,
  defaultJobOptions: JobsOptions,
  logger?: Logger,
): HealingQueue<Queue<T>> {
  return healingQueue(
    () => new Queue<T>(name, { connection, prefix, defaultJobOptions }),
    (err) => logger?.warn({ queue: name, err }, "queue set-up had failed; made it again"),
  );
}

/**
 * The queue registry: producer side of every queue, sharing one connection (for the receiver,
 * a fail-fast one: a producer that cannot reach Redis must say so at once, so the receiver can
 * spool instead of hanging). Each queue heals itself if its set-up failed.
 */
export function createQueues(connection: Redis, prefix: string, logger?: Logger): Queues {
  const deliveries = makeQueue<DeliveryJob>(
    connection,
    prefix,
    QUEUE_NAMES.deliveries,
    JOB_DEFAULTS.deliveries,
    logger,
  );
  const slack = makeQueue<SlackJob>(connection, prefix, QUEUE_NAMES.slack, JOB_DEFAULTS.slack, logger);
  const refresh = makeQueue<RefreshJob>(
    connection,
    prefix,
    QUEUE_NAMES.refresh,
    JOB_DEFAULTS.refresh,
    logger,
  );
  const weekly = makeQueue<WeeklyJob>(connection, prefix, QUEUE_NAMES.weekly, JOB_DEFAULTS.weekly, logger);
  // The reconcile scheduler sets its jobs' options itself.
  const reconcile = makeQueue<ReconcileJob>(connection, prefix, QUEUE_NAMES.reconcile, {}, logger);
  const digest = makeQueue<DigestJob>(connection, prefix, QUEUE_NAMES.digest, JOB_DEFAULTS.digest, logger);
  // The alerts scheduler sets its jobs' options itself.
  const alerts = makeQueue<AlertsJob>(connection, prefix, QUEUE_NAMES.alerts, {}, logger);
  const byName = new Map<string, () => Queue>([
    [QUEUE_NAMES.deliveries, deliveries],
    [QUEUE_NAMES.slack, slack],
    [QUEUE_NAMES.refresh, refresh],
    [QUEUE_NAMES.weekly, weekly],
    [QUEUE_NAMES.reconcile, reconcile],
    [QUEUE_NAMES.digest, digest],
    [QUEUE_NAMES.alerts, alerts],
  ]);
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
    get weekly() {
      return weekly();
    },
    get reconcile() {
      return reconcile();
    },
    get digest() {
      return digest();
    },
    get alerts() {
      return alerts();
    },
    byName: (name) => byName.get(name)?.(),
    all: () => [...byName.values()].map((q) => q()),
    close: async () => {
      await Promise.all(
        [deliveries, slack, refresh, weekly, reconcile, digest, alerts].map((q) => q.close()),
      );
    },
  };
}

/** Job ids may not contain ':' in BullMQ (it is the key separator). */
export const jobId = (...parts: (string | number)[]) =>
  parts.map((p) => String(p).replace(/:/g, "_")).join("|");
