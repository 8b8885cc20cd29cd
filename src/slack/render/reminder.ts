import { questionStatusLabel, sentimentLabel } from "../../domain/sentiment.js";
import type { TriageState } from "../../domain/thread-change.js";
import type { ThreadDigest } from "../../domain/thread-digest.js";
import { Blocks, Elements } from "slack-block-builder";
import { escapeAndTruncate } from "../mrkdwn.js";
import { encodeItemRef, PERSONAL_ACTIONS } from "../personal-ids.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { EMOJI, plural, readerDate, slackDate } from "./wording.js";

/*
 * What a reminder says (`digest.remind`): the reminder DM when its time comes, the presser's
 * confirmation, and its line in `watch list` and on Home. Pure.
 */

const TITLE_MAX = 200;

/** The thread's state in one line: sentiment, question status, messages, last activity, assignee. */
export function threadStateLine(d: Partial<ThreadDigest>, triage?: TriageState): string {
  const parts: string[] = [];
  if (d.sentiment !== undefined) {
    const s = sentimentLabel(d.sentiment);
    parts.push(`${s.emoji} ${escapeAndTruncate(s.label, 40)}`);
  }
  if (d.isQuestionLed && d.questionResponseStatus !== undefined) {
    const q = questionStatusLabel(d.questionResponseStatus);
    parts.push(`${q.emoji} ${escapeAndTruncate(q.label, 40)}`);
  }
  if (d.messageCount !== undefined) parts.push(plural(d.messageCount, "message"));
  if (d.lastMessageDate) parts.push(`last activity ${readerDate(d.lastMessageDate)}`);
  if (triage?.assignee) parts.push(`${EMOJI.assignee} assigned to <@${triage.assignee.user}>`);
  return parts.join(" · ");
}

/**
 * The reminder DM: the thread's title and group, its current state, and (added when sent) a
 * link to the card. Community text is escaped; user ids come from Slack.
 */
export function reminderText(o: {
  title: string;
  groupName?: string | undefined;
  digest?: Partial<ThreadDigest> | undefined;
  triage?: TriageState | undefined;
}): string {
  const title = escapeAndTruncate(o.title.trim() || "Untitled thread", TITLE_MAX);
  const group = o.groupName?.trim() ? ` — ${escapeAndTruncate(o.groupName.trim(), 80)}` : "";
  const state = o.digest ? threadStateLine(o.digest, o.triage) : "";
  return [`${EMOJI.reminder} Reminder: *${title}*${group}`, state, "Not marked handled yet."]
    .filter(Boolean)
    .join("\n");
}

/** The presser's confirmation, private: what, when (in their own zone, as Slack shows dates). */
export function reminderSetText(o: { title: string; dueAtMs: number; already?: boolean }): string {
  const title = escapeAndTruncate(o.title.trim() || "this thread", TITLE_MAX);
  const when = slackDate(o.dueAtMs, "{date_short_pretty} at {time}");
  return o.already
    ? `${EMOJI.reminder} You already have a reminder about *${title}* (${when}).`
    : `${EMOJI.reminder} I will remind you about *${title}* (${when}), unless it is marked handled by then. Cancel it from \`/insight watch list\` or the Home tab.`;
}

/** A pending reminder's line in `watch list` and on Home. */
export function reminderLine(r: { title: string; channelId: string; dueAtMs: number }): string {
  const title = escapeAndTruncate(r.title.trim() || "Untitled thread", 120);
  const where = r.channelId.startsWith("D") ? "from your DM" : `in <#${r.channelId}>`;
  return `${EMOJI.reminder} *${title}* ${where} · ${slackDate(r.dueAtMs, "{date_short_pretty} at {time}")}`;
}

/** A pending reminder's row in `watch list` and on Home: its line and a Cancel button. */
export function reminderRow(r: {
  id: string;
  title: string;
  channelId: string;
  dueAtMs: number;
}): KnownBlock[] {
  return toKnownBlocks(
    Blocks.Section({ text: reminderLine(r) }).accessory(
      Elements.Button({
        text: "Cancel",
        actionId: PERSONAL_ACTIONS.reminderCancel,
        value: encodeItemRef({ i: r.id }),
      }),
    ),
  );
}
