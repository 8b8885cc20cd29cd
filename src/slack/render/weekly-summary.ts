import { Blocks, Elements, Md } from "slack-block-builder";
import { NOT_RATED, questionStatusLabel, sentimentLabel, TONE_EMOJI } from "../../domain/sentiment.js";
import { percentChange, type ToneChange } from "../../domain/weekly-compare.js";
import type { DayCount } from "../../domain/weekly-days.js";
import type { GroupFailure, GroupOutcome, GroupWeek, WeeklyReport } from "../../domain/weekly-report.js";
import type { ThreadRef } from "../../domain/weekly-stats.js";
import { describeDays, formatDay } from "../../domain/weekly-window.js";
import { ACTIONS } from "../action-ids.js";
import { encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, plainText, truncateMrkdwn } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitBlocks, LIMITS } from "./limits.js";
import { linesToSections } from "./sections.js";
import type { RenderedMessage } from "./thread-digest.js";
import { formatNumber } from "../../domain/without-icu.js";
import { EMOJI, plural } from "./wording.js";

/**
 * "View messages" opens the messages modal of the commands module (src/slack/interactions):
 * its action id and value format, so the button works wherever that module is loaded.
 */
export const VIEW_THREAD_MESSAGES = ACTIONS.viewMessages;

/** A channel's weekly summary: one message, and the groups whose charts go in its thread. */
export interface WeeklyMessage extends RenderedMessage {
  /** Stable name of the message within the run: what a retry skips. */
  part: "summary";
  /** Groups summarised in the message, in order: one chart each, posted as replies. */
  chartGroupIds: string[];
}

const SHOWN_KEYWORDS = 8;
const SHOWN_AWAITING = 5;
const SHOWN_ACTIVE = 5;
const TITLE_MAX = 120;
const NAME_MAX = 120;
const KEYWORD_MAX = 40;
const FALLBACK_MAX = 200;
/** Charts posted in the summary's thread at most: one per group, the first groups first. */
export const MAX_CHARTS = 10;
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const name = (s: string, fallback: string) => escapeAndTruncate(s.trim() || fallback, NAME_MAX);
const title = (t: ThreadRef) => escapeAndTruncate(t.title.trim() || "Untitled thread", TITLE_MAX);

/** "Mar 3" in a time zone, for a thread's last activity. */
function shortDate(iso: string | undefined, timeZone: string): string | undefined {
  const t = iso ? Date.parse(iso) : Number.NaN;
  if (Number.isNaN(t)) return undefined;
  return new Intl.DateTimeFormat("en-US", { timeZone, month: "short", day: "numeric" }).format(t);
}

/** "▲ 5 pts", "▼ 2.5 pts", "no change"; "" without a base. */
export function formatDelta(points: number | undefined): string {
  if (points === undefined) return "";
  if (points === 0) return "no change";
  return `${points > 0 ? "▲" : "▼"} ${Math.abs(points)} pt${Math.abs(points) === 1 ? "" : "s"}`;
}

function toneLine(t: ToneChange): string {
  const pct = `${Math.round(t.share * 100)}%`;
  const delta = formatDelta(t.deltaPoints);
  return `${TONE_EMOJI[t.tone]} ${capitalise(t.tone)} ${Md.bold(pct)} (${formatNumber(t.count)})${delta ? ` · ${delta}` : ""}`;
}

function sentimentSection(w: GroupWeek): string {
  const lines = [Md.bold("Sentiment") + (w.previous ? " (change against the week before)" : "")];
  if (w.change.rated === 0) lines.push("No thread has a sentiment yet.");
  else lines.push(...w.change.tones.map(toneLine));
  if (w.change.unrated > 0) lines.push(Md.italic(`${plural(w.change.unrated, "thread")} ${NOT_RATED}`));
  if (!w.previous) lines.push(Md.italic("No comparison: the week before could not be read."));
  else if (w.change.previousRated === 0)
    lines.push(Md.italic("No comparison: no thread was rated the week before."));
  return lines.join("\n");
}

function keywordsLine(w: GroupWeek): string | undefined {
  const k = w.stats.keywords.slice(0, SHOWN_KEYWORDS);
  if (k.length === 0) return undefined;
  const parts = k.map((e) => `${escapeAndTruncate(e.keyword, KEYWORD_MAX)} (${formatNumber(e.count)})`);
  return `${Md.bold("Recurring keywords")} (threads that have each): ${parts.join(" · ")}`;
}

/** The question counts, and the open questions nobody marked handled here, quiet longest first. */
function questionsSection(w: GroupWeek, timeZone: string): string {
  const q = w.stats.questions;
  if (q.total === 0) return `${Md.bold("Questions:")} no thread started with a question.`;
  const parts = [
    q.answered && `${questionStatusLabel("answered").emoji} ${formatNumber(q.answered)} answered`,
    q.partial && `${questionStatusLabel("partial").emoji} ${formatNumber(q.partial)} partially answered`,
    q.unanswered && `${questionStatusLabel("unanswered").emoji} ${formatNumber(q.unanswered)} unanswered`,
    q.pending && `${questionStatusLabel("pending").emoji} ${formatNumber(q.pending)} awaiting an answer`,
    q.unknown && `${questionStatusLabel(undefined).emoji} ${formatNumber(q.unknown)} status unknown`,
  ].filter((p): p is string => typeof p === "string");
  const lines = [
    `${Md.bold("Questions:")} ${plural(q.total, "thread")} started with a question — ${parts.join(" · ")}`,
  ];
  // Marked handled: someone took care of it here, so it leaves "Still open" whatever the service says.
  const handled = w.handled?.ids;
  const isOpen = (id: string) => !handled?.has(id);
  const open = w.stats.openQuestionIds.filter(isOpen).length;
  const waiting = w.stats.awaitingAnswer.filter((t) => isOpen(t.id)).slice(0, SHOWN_AWAITING);
  if (waiting.length > 0) {
    lines.push(Md.bold("Still open, quiet longest first:"));
    for (const t of waiting) {
      const status = questionStatusLabel(t.questionResponseStatus);
      const last = shortDate(t.lastMessageDate, timeZone);
      const details = [
        `${status.emoji} ${escapeAndTruncate(status.label, 40)}`,
        t.messageCount === undefined ? undefined : plural(t.messageCount, "message"),
        last && `last activity ${last}`,
      ].filter(Boolean);
      lines.push(`• ${title(t)} — ${details.join(" · ")}`);
    }
    if (open > waiting.length) lines.push(Md.italic(`…and ${formatNumber(open - waiting.length)} more`));
  } else if (handled && open === 0 && w.stats.openQuestionIds.length > 0) {
    lines.push(Md.italic("Every open question was marked handled here."));
  }
  return lines.join("\n");
}

function activeThreadBlocks(w: GroupWeek, shown: number): KnownBlock[][] {
  return w.stats.mostActive.slice(0, shown).map((t) => {
    const s = t.sentiment === undefined ? undefined : sentimentLabel(t.sentiment);
    const details = [
      t.messageCount === undefined ? "message count unknown" : plural(t.messageCount, "message"),
      s && `${s.emoji} ${escapeAndTruncate(s.label, 40)}`,
      w.handled?.ids.has(t.id) && `${EMOJI.handled} handled`,
    ].filter(Boolean);
    return toKnownBlocks(
      Blocks.Section({ text: `${Md.bold(title(t))}\n${details.join(" · ")}` }).accessory(
        Elements.Button({
          text: "View messages",
          actionId: VIEW_THREAD_MESSAGES,
          value: encodeThreadRef({ g: w.groupId, t: t.id, n: t.title.trim() || "Untitled thread", p: 1 }),
        }),
      ),
    );
  });
}

/** The busiest days: the chart's own per-day counts, labelled as threads by day of last activity. */
export function busiestLine(days: DayCount[]): string | undefined {
  if (days.length === 0) return undefined;
  const list = days.map((d) => `${formatDay(d.day)} (${plural(d.count, "thread")})`).join(" · ");
  return `${Md.bold("Busiest days")} (threads by day of last activity): ${list}`;
}

/** Lines that keep the counts honest: what they leave out or start from. */
function caveats(w: GroupWeek, timeZone: string): string[] {
  const lines: string[] = [];
  if (w.countedFrom !== undefined) {
    const from = new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "short",
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(w.countedFrom);
    lines.push(`Counted from ${from}: the service's older listing did not answer.`);
  }
  if (w.stats.undated > 0) {
    lines.push(`${plural(w.stats.undated, "thread")} without a date of last activity not counted.`);
  }
  return lines;
}

const FAILURE_TEXT: Record<GroupFailure, string> = {
  forbidden:
    "the API key may not read it (403). A community admin can grant access in the Insight dashboard.",
  not_found: "the Insight Service does not know this chat group any more.",
  unavailable: "the Insight Service did not answer. `/insight weekly now` tries again.",
};

/** Lines about the groups that have no summary of their own: quiet ones and unreadable ones. */
function notes(groups: GroupOutcome[]): string[] {
  const quiet = groups.filter((g) => g.kind === "empty").map((g) => Md.bold(name(g.groupName, g.groupId)));
  const lines: string[] = [];
  if (quiet.length > 0) lines.push(`${EMOJI.quiet} No threads this week in ${joinNames(quiet)}.`);
  for (const g of groups) {
    if (g.kind !== "failed") continue;
    lines.push(
      `${g.reason === "forbidden" ? EMOJI.notAllowed : EMOJI.problem} Could not read ${Md.bold(name(g.groupName, g.groupId))}: ${FAILURE_TEXT[g.reason]}`,
    );
  }
  return lines;
}

const joinNames = (names: string[]) =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1) ?? ""}`;

/** " (+12% on the week before)", " (same as the week before)", " (none the week before)"; "" unknown. */
export function threadsChange(current: number, previous: number | undefined): string {
  if (previous === undefined) return "";
  if (previous === 0) return " (none the week before)";
  const pct = percentChange(current, previous) ?? 0;
  if (pct === 0)
    return current === previous ? " (same as the week before)" : " (about the same as the week before)";
  return ` (${pct > 0 ? "+" : ""}${pct}% on the week before)`;
}

/** The count fields of a group's week: threads, messages in them and, when known, handled. */
function countFields(w: GroupWeek): string[] {
  const s = w.stats;
  const fields = [
    `${Md.bold("Threads active")}\n${formatNumber(s.threads)}${threadsChange(s.threads, w.previous?.threads)}`,
    `${Md.bold("Messages in these threads")}\n${formatNumber(s.messages)}${s.threadsWithoutCount > 0 ? ` (${plural(s.threadsWithoutCount, "thread")} without a count)` : ""}`,
  ];
  // Only where someone triages: "0 of 5" would read as a failure in a channel without cards.
  if (w.handled && w.handled.count > 0)
    fields.push(
      `${Md.bold("Marked handled here")}\n${formatNumber(w.handled.count)} of ${formatNumber(s.threads)} (Mark handled on their cards)`,
    );
  return fields;
}

interface Shape {
  /** Most active threads shown with a button, per group. */
  active: number;
  /** Several groups: each under its own heading instead of in the message's header. */
  several: boolean;
}

/** One group's week as blocks (its heading included when the message covers several groups). */
function groupBlocks(w: GroupWeek, timeZone: string, shape: Shape): KnownBlock[] {
  const keywords = keywordsLine(w);
  const busiest = busiestLine(w.busiest);
  const cav = caveats(w, timeZone);
  const active = activeThreadBlocks(w, shape.active);
  const hiddenActive = Math.min(w.stats.mostActive.length, SHOWN_ACTIVE) - active.length;
  return [
    ...toKnownBlocks(
      shape.several && Blocks.Divider(),
      shape.several && Blocks.Section({ text: Md.bold(name(w.groupName, w.groupId)) }),
      Blocks.Section().fields(countFields(w)),
      Blocks.Section({ text: sentimentSection(w) }),
      keywords !== undefined && Blocks.Section({ text: keywords }),
      Blocks.Section({ text: questionsSection(w, timeZone) }),
      busiest !== undefined && Blocks.Section({ text: busiest }),
      active.length > 0 && Blocks.Section({ text: Md.bold("Most active threads") }),
    ),
    ...active.flat(),
    ...toKnownBlocks(
      hiddenActive > 0 &&
        active.length > 0 &&
        Blocks.Context().elements(`…and ${plural(hiddenActive, "more active thread")}`),
      cav.length > 0 && Blocks.Context().elements(cav.join("\n")),
    ),
  ];
}

/** One line per group, for a channel that follows too many groups for the full layout. */
function compactLine(w: GroupWeek): string {
  const s = w.stats;
  const negative = w.change.tones.find((t) => t.tone === "negative");
  const parts = [
    `${plural(s.threads, "thread")} active${threadsChange(s.threads, w.previous?.threads)}`,
    `${plural(s.messages, "message")} in them`,
    negative && w.change.rated > 0 && `${TONE_EMOJI.negative} ${Math.round(negative.share * 100)}% negative`,
    s.questions.total > 0 &&
      `${plural(w.stats.openQuestionIds.filter((id) => !w.handled?.ids.has(id)).length, "open question")}`,
    w.handled &&
      w.handled.count > 0 &&
      `marked handled here: ${formatNumber(w.handled.count)} of ${formatNumber(s.threads)}`,
    w.busiest[0] && `busiest ${formatDay(w.busiest[0].day)} (${plural(w.busiest[0].count, "thread")})`,
  ].filter((p): p is string => typeof p === "string");
  return `• ${Md.bold(name(w.groupName, w.groupId))}: ${parts.join(" · ")}`;
}

const fits = (blocks: KnownBlock[]) =>
  blocks.length <= LIMITS.blocksPerMessage && JSON.stringify(blocks).length <= LIMITS.messageBlocksJson;

/**
 * A channel's weekly summary as one message. A quiet week (no group had a thread) is one
 * line. One group: its week under a header with its name. Several groups: a section each,
 * showing as many most-active threads (with their View button) as the 50 blocks and the
 * message size allow, every group alike; when even that does not fit, one line per group.
 * Groups that were quiet or could not be read are named at the end. The charts (one per
 * summarised group) go in the message's thread.
 */
export function renderWeeklyReport(r: WeeklyReport): WeeklyMessage {
  const range = describeDays(r.window.days);
  const zone = escapeAndTruncate(r.timeZone, 60);
  const summaries = r.groups.flatMap((g) => (g.kind === "summary" ? [g.week] : []));
  const others = notes(r.groups);
  if (summaries.length === 0) {
    const quiet = r.groups.every((g) => g.kind === "empty");
    const text =
      r.groups.length === 0
        ? `${EMOJI.quiet} Weekly summary, ${range}: this channel follows no chat group.`
        : quiet
          ? `${EMOJI.quiet} Weekly summary, ${range}: a quiet week, no threads in ${joinNames(
              r.groups.map((g) =>
                Md.bold(
                  g.kind === "summary"
                    ? name(g.week.groupName, g.week.groupId)
                    : name(g.groupName, g.groupId),
                ),
              ),
            )}.`
          : [`${Md.bold("Weekly summary")}, ${range}`, ...others].join("\n");
    return {
      part: "summary",
      chartGroupIds: [],
      // Already escaped: only shortened, never escaped twice.
      text: truncateMrkdwn(text.replace(/\*/g, "").split("\n")[0] ?? "", FALLBACK_MAX),
      blocks: toKnownBlocks(Blocks.Section({ text })),
    };
  }

  const several = summaries.length > 1;
  const [only] = summaries;
  const heading =
    several || !only ? "Weekly summary" : `Weekly summary: ${only.groupName.trim() || only.groupId}`;
  const head = toKnownBlocks(
    Blocks.Header({ text: plainText(heading, LIMITS.headerText) }),
    Blocks.Context().elements(
      r.window.untilNow
        ? `${range}: the last 7 days up to now, today included, in ${zone}. Threads count on the day of their last activity.`
        : `${range}: 7 calendar days in ${zone}. Threads count on the day of their last activity.`,
    ),
  );
  const tail = toKnownBlocks(
    others.length > 0 && Blocks.Context().elements(others.join("\n")),
    Blocks.Context().elements(
      summaries.length > MAX_CHARTS
        ? `Charts of threads by sentiment per day for the first ${MAX_CHARTS} groups in the replies.`
        : `${several ? "Charts" : "A chart"} of threads by sentiment per day in the replies.`,
    ),
  );
  let blocks: KnownBlock[] | undefined;
  for (let active = SHOWN_ACTIVE; active >= 0 && !blocks; active--) {
    const candidate = [
      ...head,
      ...summaries.flatMap((w) => groupBlocks(w, r.timeZone, { active, several })),
      ...tail,
    ];
    if (fits(candidate)) blocks = candidate;
  }
  // Too many groups for sections: one line each (and the generic fit as the last resort).
  blocks ??= fitBlocks([...head, ...linesToSections(summaries.map(compactLine)), ...tail], {
    moreText: "…and more groups: the message has no room left for them.",
  });

  const counts = summaries.map(
    (w) => `${w.groupName.trim() || w.groupId}: ${plural(w.stats.threads, "thread")}`,
  );
  const text = escapeAndTruncate(
    several || !only
      ? `Weekly summary (${range}): ${counts.join(" · ")}`
      : `Weekly summary for ${only.groupName.trim() || only.groupId}: ${plural(only.stats.threads, "thread")}, ${plural(only.stats.messages, "message")} (${range})`,
    FALLBACK_MAX,
  );
  const chartGroupIds = summaries.slice(0, MAX_CHARTS).map((w) => w.groupId);
  return { part: "summary", chartGroupIds, text, blocks };
}
