import type { WebhookEvent, ThreadEvent } from "../insight/schemas.js";
import type { ThreadDigest } from "../domain/thread-digest.js";
import type { DigestEvery } from "../domain/subscription.js";

/*
 * What each queue's jobs carry, and how a feature adds one: the contracts between producers
 * and workers. A leaf: nothing of BullMQ, so the receiver, the intake and ops can name a job
 * without the queue machinery (queue-registry.ts).
 */

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

/** What every job of a workspace carries, so the worker knows whose it is (and refuses one without). */
export interface WorkspaceStamp {
  workspaceId?: string;
}

/** The options a producer sets on a job (a subset of BullMQ's `JobsOptions`). */
export interface AddOptions {
  /** De-duplicates: adding a job whose id is kept is a no-op. */
  jobId?: string;
  delay?: number;
  priority?: number;
}

/** What a feature needs to queue a job: `add` (a BullMQ Queue is one too). */
export interface Producer<T> {
  add(name: string, data: T, opts?: AddOptions): Promise<unknown>;
}

/** A webhook delivery, as recorded by the receiver. */
export interface DeliveryJob {
  deliveryId: string;
  receivedAt: string;
  event: WebhookEvent;
  /** The receiver's script checked the 7-day marker (every job since the intake list). */
  deduplicated?: true;
}

/**
 * Several deliveries of one intake batch that go to the same shard, in one job: in a burst the
 * pump queues a batch's deliveries together, so BullMQ's add, fetch and completion are paid
 * once a batch instead of once a delivery. Each delivery is still processed (and, should it
 * fail, retried and recorded as failed) on its own: see `process-batch.ts`.
 */
export interface DeliveryBatchJob {
  batch: DeliveryJob[];
}

/** What the deliveries queue holds: one delivery, or a batch of them. */
export type DeliveriesJob = (DeliveryJob | DeliveryBatchJob) & WorkspaceStamp;

export const isDeliveryBatch = (data: DeliveriesJob): data is DeliveryBatchJob => "batch" in data;

/**
 * A delivery's job of its own: named after its webhook type, its delivery id as job id, so that
 * queueing it again while its job is kept is a no-op.
 */
export const jobOfOwn = (delivery: DeliveryJob): { name: string; data: DeliveryJob; opts: AddOptions } => ({
  name: delivery.event.webhookType,
  data: delivery,
  opts: { jobId: delivery.deliveryId },
});

/** The deliveries a job of the deliveries queue holds, in order. */
export const deliveriesOf = (data: DeliveriesJob): DeliveryJob[] =>
  isDeliveryBatch(data) ? data.batch : [data];

/**
 * One Slack effect. Digests carry the domain object; rendering happens at send time. Cards,
 * replies and DMs carry only ids: what they show is read when their turn comes.
 */
export type SlackJob = (
  | {
      kind: "digest";
      channelId: string;
      digest: ThreadDigest;
      enrichedAtMs: number;
      /** The thread left this channel's filters: edit the card if there is one, never post (rule 10). */
      noLongerMatches?: boolean;
      /** Set when the job was delayed to a reserved per-channel slot. */
      slotAt?: number;
      /**
       * Slack refused the card for good when it was tried at once (send-now.ts): the job records
       * that failure as its own, without asking Slack a second time.
       */
      refusedAtOnce?: string;
    }
  | {
      kind: "card";
      channelId: string;
      threadId: string;
      /** `triage`: a button changed it; `counts`: new messages arrived (counts read from the listing). */
      reason: "triage" | "counts";
      slotAt?: number;
    }
  | {
      /**
       * The cards of a channel whose counts windows end at `at` (ms; store/counts-due.ts): each
       * edited if its counts moved.
       */
      kind: "counts";
      channelId: string;
      at: number;
      slotAt?: number;
    }
  | {
      kind: "replies";
      channelId: string;
      threadId: string;
      /** Looks at the message listing that did not show every waiting message yet (bots are told there). */
      looks?: number;
      slotAt?: number;
    }
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
  | { kind: "notice"; channelId: string; text: string; slotAt?: number }
  | {
      /** A reminder set from a card (`digest.remind`), delayed to its time: slack-jobs/remind.ts. */
      kind: "remind";
      /** The throttle's key: the user's DM, one slot a second like a channel. */
      channelId: string;
      userId: string;
      /** Its id in the person's reminders (store/reminders.ts); cancelled when gone. */
      reminderId: string;
      slotAt?: number;
    }
  | {
      /** A personal watch's first match: a DM with the thread's compact card (slack-jobs/watch-dm.ts). */
      kind: "watch-dm";
      /** The throttle's key: the person's DM, one slot a second like a channel. */
      channelId: string;
      userId: string;
      watchId: string;
      digest: ThreadDigest;
      slotAt?: number;
    }
  | {
      /**
       * A watch DM brought up to date (slack-jobs/watch-dm-edit.ts): its thread changed (`digest`,
       * the thread now), or its triage did (no digest: re-rendered from what it shows).
       */
      kind: "watch-edit";
      /** The throttle's key: the person's DM. */
      channelId: string;
      userId: string;
      threadId: string;
      digest?: ThreadDigest;
      /** False once the thread left every watch of the person. */
      stillMatches?: boolean;
      slotAt?: number;
    }
  | {
      /** A person's gathered watch DM (daily, or after quiet hours), delayed to its time (slack-jobs/watch-gather.ts). */
      kind: "watch-gather";
      /** The throttle's key: the person's DM. */
      channelId: string;
      userId: string;
      slotAt?: number;
    }
) &
  WorkspaceStamp;

/** The kinds of Slack job: each has its own handler (jobs/slack-jobs/). */
export type SlackJobKind = SlackJob["kind"];

/**
 * A later look at the listing for a thread: its first card waits a few seconds for the
 * sentiment (`waited`: the short looks made so far), a digest that went out without sentiment
 * looks again (`attempt`), and a thread held back only by a channel's thresholds is counted
 * again when messages arrive (`recount`: its counts from the message listing).
 */
export interface RefreshJob extends WorkspaceStamp {
  event: ThreadEvent;
  attempt: number;
  waited?: number;
  recount?: true;
}

/** A job of the `weekly` queue: one channel's summary. */
export interface WeeklyJob extends WorkspaceStamp {
  channelId: string;
  trigger: "schedule" | "now";
  /** The zone dates are shown in (and a scheduled run's week is named in). */
  timeZone: string;
  requestedBy?: string;
}

/** A job of the `reconcile` queue: one pass over every followed group; it carries nothing. */
export type ReconcileJob = Record<string, never>;

/** A job of the `digest` queue: flush one channel's pending digest (a period's end, or `digest now`). */
export interface DigestJob extends WorkspaceStamp {
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

/** Job ids may not contain ':' in BullMQ (it is the key separator). */
export const jobId = (...parts: (string | number)[]) =>
  parts.map((p) => String(p).replace(/:/g, "_")).join("|");
