import { deliveryOf } from "../domain/subscription.js";
import type { MessageEvent } from "../insight/schemas.js";
import type { BelowThresholdStore } from "../store/below-threshold.js";
import type { CountsDueStore } from "../store/counts-due.js";
import type { MessageRefStore } from "../store/message-refs.js";
import type { PendingReplies } from "../store/pending-replies.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import type { ThreadActivityStore } from "../store/thread-activity.js";
import type { AskedThisWindow } from "./asked-this-window.js";
import { jobId, type AddOptions, type Producer, type RefreshJob, type SlackJob } from "./job-types.js";

export interface MessageRouteDeps {
  subscriptions: Pick<SubscriptionStore, "forGroup">;
  refs: Pick<MessageRefStore, "has">;
  replies: Pick<PendingReplies, "push">;
  /** A getter, not the queue: see `healingQueue`. */
  slackQueue: () => Producer<SlackJob>;
  /** Threads held back only by thresholds: counted again (a refresh job) when they grow. */
  belowThreshold?: Pick<BelowThresholdStore, "get">;
  refreshQueue?: () => Producer<RefreshJob>;
  /** Notes when the thread's message was routed: its counts edit trusts listing reads after that. */
  threadActivity?: Pick<ThreadActivityStore, "noteMessage">;
  /**
   * The cards whose counts windows end at the same time: one job looks at them all then (absent:
   * a delayed job for each card's window).
   */
  countsDue?: Pick<CountsDueStore, "add">;
  /** At most one counts edit per card per this long (default 3 minutes). */
  countsDebounceMs?: number;
  /** Messages within this long go as one reply under the card (default 1 minute). */
  repliesBatchMs?: number;
  /** The windowed jobs this process already added: not asked for again within their window. */
  asked?: AskedThisWindow;
  /** Where a thread's windows start within the window length (default: `threadWindowPhase`). */
  windowPhase?: (threadId: string, windowMs: number) => number;
  now?: () => number;
}

export const DEFAULT_COUNTS_DEBOUNCE_MS = 180_000;
export const DEFAULT_REPLIES_BATCH_MS = 60_000;

/** The kinds of job that wait for the end of a card's window (the first part of their job ids). */
const WINDOWED = {
  counts: "counts",
  countsDue: "counts-due",
  replies: "replies",
  recount: "recount",
} as const;
const WINDOWED_ID = new RegExp(`^(${Object.values(WINDOWED).join("|")})\\|`);

/** Whether a job id is of a windowed job: steady work at its thread's own time, not a backlog. */
export const isWindowedJobId = (id: string): boolean => WINDOWED_ID.test(id);

/** The id of a card's counts edit for one window: one edit per card and window, whoever asks. */
export const countsEditJobId = (channel: string, threadId: string, window: number): string =>
  jobId(WINDOWED.counts, channel, threadId, window);

/**
 * Cards whose counts windows end within this long of each other share one job (counts-due.ts):
 * a second, or a tenth of a shorter window (tests).
 */
const countsDueStep = (windowMs: number): number => Math.max(1, Math.min(1_000, Math.floor(windowMs / 10)));

export interface MessageRouteResult {
  /** Cards whose counts will be refreshed at the end of their window. */
  counts: number;
  /** Cards under which this message will go as (part of) a reply. */
  replies: number;
  /** The thread was held back by a channel's thresholds: its counts are looked at again. */
  recount?: true;
}

/** The service marks system and bot messages only in the message listing; a delivery may carry them too. */
const isSystemOrBot = (p: MessageEvent["payload"]): boolean =>
  (p as { isSystemMessage?: unknown }).isSystemMessage === true ||
  (p as { isBotMessage?: unknown }).isBotMessage === true;

/**
 * The job of a window: every message of one card within the same window maps to the same job
 * id, so a burst is one job (BullMQ keeps one job per id), which runs when the window ends. Each
 * thread's windows are shifted by its own phase: windows aligned on the clock ended together
 * for every card, and every card with new messages was edited (or replied under) at that one
 * instant, every 3 minutes (every minute for replies), a burst against Slack's limits.
 */
function windowed(now: number, windowMs: number, phaseMs: number): { id: number; delay: number } {
  const id = Math.floor((now - phaseMs) / windowMs);
  return { id, delay: (id + 1) * windowMs + phaseMs - now };
}

/**
 * A thread's phase within windows of `windowMs`: the same in every process (the window's job id
 * is shared by all of them), spread evenly over the window across threads (FNV-1a of the id).
 */
export function threadWindowPhase(threadId: string, windowMs: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < threadId.length; i++) {
    h ^= threadId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % windowMs;
}

/**
 * chatmessage-crud -> for each realtime channel that shows a card of the message's thread:
 * a counts edit at the end of the card's debounce window (rule 10: counts follow activity, at
 * most one edit per window, through the channel's throttle), and, with `--replies on`, the
 * new message queued to go under the card in the next reply batch. A thread that a channel
 * holds back only by its thresholds is counted again at the end of the same window, and goes
 * out once it passes them (`--min-messages 5`: posted when its fifth message arrives).
 */
export async function routeMessageEvent(
  event: MessageEvent,
  deps: MessageRouteDeps,
): Promise<MessageRouteResult> {
  const p = event.payload;
  const threadId = p.threadId;
  const result: MessageRouteResult = { counts: 0, replies: 0 };
  if (!threadId) return result;
  const followed = (await deps.subscriptions.forGroup(p.groupId)).filter((s) => !s.paused);
  const subs = followed.filter((s) => deliveryOf(s).mode === "realtime");
  if (followed.length === 0) return result;

  const now = (deps.now ?? Date.now)();
  const phase = deps.windowPhase ?? threadWindowPhase;
  const countsMs = deps.countsDebounceMs ?? DEFAULT_COUNTS_DEBOUNCE_MS;
  const batchMs = deps.repliesBatchMs ?? DEFAULT_REPLIES_BATCH_MS;
  const counts = windowed(now, countsMs, phase(threadId, countsMs));
  const batch = windowed(now, batchMs, phase(threadId, batchMs));
  for (const sub of subs) {
    const channel = sub.channelId;
    if (!(await deps.refs.has(channel, threadId))) continue;
    // Once, before any counts edit is asked for: the edit must not use counts read before this message.
    if (result.counts === 0) await deps.threadActivity?.noteMessage(threadId, now);
    result.counts++;
    await askForCounts(deps, now, channel, threadId, counts, countsMs);

    // Only new messages go under the card: an edited one was already there or is not news.
    if (!deliveryOf(sub).replies || event.actionType !== "created" || isSystemOrBot(p)) continue;
    const at =
      p.messageTimestamp && !Number.isNaN(Date.parse(p.messageTimestamp)) ? p.messageTimestamp : p.timestamp;
    const queued = await deps.replies.push(channel, threadId, {
      messageId: p.messageId,
      author: p.senderName ?? "",
      text: p.text ?? "",
      at,
    });
    // Queued before (a delivery processed twice): not again; its reply job is asked for anyway,
    // in case the run that queued it died before asking.
    if (queued) result.replies++;
    await addOncePerWindow(
      deps,
      now,
      "replies",
      { kind: "replies", channelId: channel, threadId },
      {
        delay: batch.delay,
        jobId: jobId(WINDOWED.replies, channel, threadId, batch.id),
      },
    );
  }
  if (await recountIfHeld(deps, followed, threadId, counts)) result.recount = true;
  return result;
}

/**
 * The card's counts looked at when its window ends: with the other cards of the channel due then,
 * in one job, or (no store, or that job has run already) in a job of the card's own.
 */
async function askForCounts(
  deps: Pick<MessageRouteDeps, "slackQueue" | "asked" | "countsDue">,
  now: number,
  channel: string,
  threadId: string,
  window: { id: number; delay: number },
  windowMs: number,
): Promise<void> {
  const own = countsEditJobId(channel, threadId, window.id);
  if (deps.asked?.has(own, now)) return;
  if (deps.countsDue) {
    const step = countsDueStep(windowMs);
    const at = Math.ceil((now + window.delay) / step) * step;
    if (await deps.countsDue.add(channel, at, { threadId, window: window.id })) {
      // Noted under the card's own id too: the window's next messages here ask nothing more.
      deps.asked?.note(own, now + window.delay, now);
      return addOncePerWindow(
        deps,
        now,
        "counts",
        { kind: "counts", channelId: channel, at },
        { delay: Math.max(0, at - now), jobId: jobId(WINDOWED.countsDue, channel, at) },
      );
    }
  }
  await addOncePerWindow(
    deps,
    now,
    "card",
    { kind: "card", channelId: channel, threadId, reason: "counts" },
    { delay: window.delay, jobId: own },
  );
}

/** Adds a windowed Slack job (its id names the window), unless this process added it already. */
async function addOncePerWindow(
  deps: Pick<MessageRouteDeps, "slackQueue" | "asked">,
  now: number,
  name: string,
  data: SlackJob,
  opts: AddOptions & { jobId: string; delay: number },
): Promise<void> {
  if (deps.asked?.has(opts.jobId, now)) return;
  await deps.slackQueue().add(name, data, opts);
  deps.asked?.note(opts.jobId, now + opts.delay, now);
}

/**
 * A new message of a thread some channel holds back by its thresholds alone: the thread is
 * counted again at the end of the window (one look at its message listing per window).
 */
async function recountIfHeld(
  deps: MessageRouteDeps,
  subs: readonly { filters: { minMessages?: number; minParticipants?: number } }[],
  threadId: string,
  window: { id: number; delay: number },
): Promise<boolean> {
  const { belowThreshold, refreshQueue } = deps;
  if (!belowThreshold || !refreshQueue) return false;
  if (!subs.some((s) => s.filters.minMessages !== undefined || s.filters.minParticipants !== undefined)) {
    return false;
  }
  const event = await belowThreshold.get(threadId);
  if (!event) return false;
  await refreshQueue().add(
    "refresh",
    { event, attempt: 0, recount: true },
    { delay: window.delay, jobId: jobId(WINDOWED.recount, event.payload.groupId, threadId, window.id) },
  );
  return true;
}
