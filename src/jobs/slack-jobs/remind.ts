import type { JobsOptions } from "bullmq";
import type { Logger } from "../../log.js";
import type { SlackSender } from "../../slack/outbound/slack-sender.js";
import { reminderText } from "../../slack/render/reminder.js";
import type { MessageRefStore } from "../../store/message-refs.js";
import type { Reminder } from "../../domain/reminder.js";
import type { ReminderStore } from "../../store/reminders.js";
import type { TriageStore } from "../../store/triage.js";
import type { WatchDmRefs } from "../../store/watch-dms.js";
import { jobId, type SlackJob } from "../job-types.js";
import type { SlackJobDeps } from "./deps.js";
import { withCardLink } from "./dm.js";
import { twoSteps } from "./handler.js";

/*
 * Remind me later (`digest.remind`): a reminder is a delayed job on the slack-out queue, its id
 * made of the person and the reminder's id, so it is queued once however often it is asked for,
 * survives restarts and failovers in Redis, and is processed by one worker. When its time comes,
 * `prepareReminder` decides (nothing when it was cancelled or the thread was marked handled
 * meanwhile) and `sendReminder` sends the DM with the card's link, in the person's DM turn.
 */

export type RemindJob = Extract<SlackJob, { kind: "remind" }>;

/** The job that fires a reminder at its time: its name, data and options (deterministic id, delay). */
export function reminderJob(
  r: Pick<Reminder, "id" | "userId" | "dueAtMs">,
  now: number,
): { name: "remind"; data: RemindJob; opts: JobsOptions } {
  return {
    name: "remind",
    data: { kind: "remind", channelId: r.userId, userId: r.userId, reminderId: r.id },
    opts: { jobId: jobId("remind", r.userId, r.id), delay: Math.max(0, r.dueAtMs - now) },
  };
}

export interface ReminderPrepareDeps {
  reminders: Pick<ReminderStore, "get" | "remove">;
  /** The channel card's ref: its current digest (the thread's state now). */
  refs: Pick<MessageRefStore, "get">;
  triage: Pick<TriageStore, "get">;
  /** A reminder set on a watch DM: that DM's digest. */
  watchDms: Pick<WatchDmRefs, "get">;
  logger: Logger;
}

/** A reminder to send: the DM's text (without the link, added at send time) and the card. */
export interface PreparedReminder {
  userId: string;
  reminderId: string;
  text: string;
  card: { channel: string; ts: string } | undefined;
}

/**
 * What a reminder's job sends when its time comes: nothing when the person cancelled it or the
 * thread was marked handled meanwhile (the reminder is then forgotten); else the DM text with
 * the thread's current state, read from the card it was set on.
 */
export async function prepareReminder(
  deps: ReminderPrepareDeps,
  job: Pick<RemindJob, "userId" | "reminderId">,
): Promise<PreparedReminder | undefined> {
  const r = await deps.reminders.get(job.userId, job.reminderId);
  if (!r) return undefined;
  const [triage, ref, dm] = await Promise.all([
    deps.triage.get(r.threadId),
    deps.refs.get(r.channelId, r.threadId),
    r.channelId.startsWith("D") ? deps.watchDms.get(r.userId, r.threadId) : undefined,
  ]);
  if (triage.handled) {
    await deps.reminders.remove(r.userId, r.id);
    deps.logger.info({ user: r.userId, threadId: r.threadId }, "reminder: handled meanwhile, nothing sent");
    return undefined;
  }
  const digest = ref?.card?.digest ?? (dm?.kind === "card" ? dm.digest : undefined);
  return {
    userId: r.userId,
    reminderId: r.id,
    text: reminderText({
      title: digest?.title || r.title,
      groupName: digest?.groupName,
      digest,
      triage,
    }),
    card: r.cardTs ? { channel: r.channelId, ts: r.cardTs } : undefined,
  };
}

export interface ReminderSendDeps {
  sender: Pick<SlackSender, "openDm" | "permalink" | "post">;
  reminders: Pick<ReminderStore, "remove">;
  logger: Logger;
}

/** Sends a prepared reminder in the person's DM, with the card's link, then forgets it. */
export async function sendReminder(deps: ReminderSendDeps, p: PreparedReminder): Promise<"sent"> {
  const dm = await deps.sender.openDm(p.userId);
  const text = await withCardLink(deps, p.text, p.card);
  await deps.sender.post({ channel: dm, text });
  await deps.reminders.remove(p.userId, p.reminderId);
  return "sent";
}

/** A reminder set from a card (`digest.remind`), delayed to its time. */
export const remindHandler = twoSteps<"remind", PreparedReminder>({
  refused: "dm",
  // Cancelled or handled meanwhile: nothing to send.
  prepare: async (attempt, deps: SlackJobDeps) => (await prepareReminder(deps, attempt.data)) ?? "stale",
  send: (_attempt, deps: SlackJobDeps, p) => sendReminder(deps, p),
});
