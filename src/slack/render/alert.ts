import { Blocks, Elements, Md } from "slack-block-builder";
import type { AlertKind, AlertSettings, HistoryThread } from "../../domain/alerts.js";
import { questionStatusLabel, sentimentLabel } from "../../domain/sentiment.js";
import { ACTIONS } from "../action-ids.js";
import { encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, truncateMrkdwn } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList, LIMITS } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { EMOJI, plural, slackDate } from "./wording.js";

/** What one alert message says: the rule that fired, its numbers, the threads. */
export type AlertMessageInput = {
  settings: Pick<AlertSettings, "groupId" | "groupName">;
  /** threadId -> permalink of the thread's card in this channel, when it has one. */
  permalinks: ReadonlyMap<string, string>;
  threads: readonly HistoryThread[];
} & (
  | { kind: Extract<AlertKind, "unanswered">; hours: number }
  | {
      kind: Extract<AlertKind, "negative">;
      negative: number;
      known: number;
      share: number;
      baseShare: number;
      baseDays: number;
    }
  | { kind: Extract<AlertKind, "volume">; lastHour: number; usualPerHour: number; baseDays: number }
);

const TITLE_MAX = 150;
const pct = (x: number) => `${Math.round(x * 100)}%`;
const rate = (x: number) => (x < 0.1 ? "under 0.1" : x.toFixed(1));

function headline(i: AlertMessageInput, group: string): string {
  switch (i.kind) {
    case "unanswered":
      return i.threads.length === 1
        ? `A question in ${group} has waited more than ${plural(i.hours, "hour")} for an answer`
        : `${i.threads.length} questions in ${group} have waited more than ${plural(i.hours, "hour")} for an answer`;
    case "negative":
      return `Negative spike in ${group}: ${i.negative} of ${plural(i.known, "thread")} in the last 24 hours are negative (${pct(i.share)}, against ${pct(i.baseShare)} over the previous ${plural(i.baseDays, "day")})`;
    case "volume":
      return `Volume spike in ${group}: ${plural(i.lastHour, "new thread")} in the last hour; usually ${rate(i.usualPerHour)} an hour (over the previous ${plural(i.baseDays, "day")})`;
  }
}

/** A thread line: its title (a link to its card when there is one), a few facts, a View button. */
function threadItem(t: HistoryThread, groupId: string, permalink: string | undefined): KnownBlock[] {
  const title = t.title.trim() || "Untitled thread";
  const escaped = escapeAndTruncate(title, TITLE_MAX);
  const s = sentimentLabel(t.sentiment);
  const facts = [`${s.emoji} ${escapeAndTruncate(s.label, 40)}`];
  if (t.isQuestionLed) {
    const q = questionStatusLabel(t.questionResponseStatus);
    facts.push(`${q.emoji} ${escapeAndTruncate(q.label.toLowerCase(), 40)}`);
  }
  if (t.firstMessageDate && !Number.isNaN(Date.parse(t.firstMessageDate))) {
    facts.push(`first message ${slackDate(Date.parse(t.firstMessageDate))}`);
  }
  // Our own permalink (from Slack) is safe in a link; the title inside it is escaped.
  const name = permalink ? `<${permalink}|${escaped}>` : Md.bold(escaped);
  return toKnownBlocks(
    Blocks.Section({ text: `${name}\n${facts.join(" · ")}` }).accessory(
      Elements.Button({
        text: "View",
        actionId: ACTIONS.viewMessages,
        value: encodeThreadRef({ g: groupId, t: t.id, n: title }),
      }),
    ),
  );
}

/** A proactive alert: what fired and why, then the threads it is about, linked to their cards. */
export function renderAlert(i: AlertMessageInput): RenderedMessage {
  return renderAlerts([i]);
}

/**
 * The alerts that fired together for one channel, as one message: each rule's line, then the
 * threads they are about, each listed once (a thread of a negative spike is often one of the
 * volume spike too), linked to their cards.
 */
export function renderAlerts(alerts: readonly AlertMessageInput[]): RenderedMessage {
  const rawName = (a: AlertMessageInput) => a.settings.groupName.trim() || a.settings.groupId;
  const lines = alerts.map((a) => `${EMOJI.alert} ${headline(a, `*${escapeAndTruncate(rawName(a), 80)}*`)}`);
  const groupIds = [...new Set(alerts.map((a) => a.settings.groupId))];
  const off = groupIds.map((g) => `\`/insight alerts off ${escapeAndTruncate(g, 60)}\``).join(", ");
  const head = toKnownBlocks(
    Blocks.Section({ text: truncateMrkdwn(lines.join("\n"), LIMITS.sectionText) }),
    Blocks.Context().elements(`Set with \`/insight alerts\`. Turn off: ${off}`),
  );
  const seen = new Set<string>();
  const items: KnownBlock[][] = [];
  for (const a of alerts) {
    for (const t of a.threads) {
      const key = `${a.settings.groupId}\u0000${t.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(threadItem(t, a.settings.groupId, a.permalinks.get(t.id)));
    }
  }
  const { blocks } = fitList({
    head,
    items,
    more: (hidden) => `…and ${plural(hidden, "more thread")}.`,
  });
  const text = alerts.map((a) => headline(a, rawName(a))).join("; ");
  return { text: escapeAndTruncate(text, alerts.length > 1 ? 300 : 200), blocks };
}
