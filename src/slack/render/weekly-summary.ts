import { Blocks, Elements, Md } from "slack-block-builder";
import { questionStatusLabel, sentimentLabel, TONE_EMOJI } from "../../domain/sentiment.js";
import { percentChange, type ToneChange } from "../../domain/weekly-compare.js";
import type { BusiestDays } from "../../domain/weekly-days.js";
import type { GroupFailure, GroupOutcome, GroupWeek, WeeklyReport } from "../../domain/weekly-report.js";
import type { ThreadRef } from "../../domain/weekly-stats.js";
import { describeRange } from "../../domain/weekly-window.js";
import { ACTIONS } from "../action-ids.js";
import { encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, plainText, truncateMrkdwn } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList, LIMITS } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";

/**
 * "View messages" opens the messages modal of the commands module (src/slack/interactions):
 * its action id and value format, so the button works wherever that module is loaded.
 */
export const VIEW_THREAD_MESSAGES = ACTIONS.viewMessages;

export interface WeeklyMessage extends RenderedMessage {
  /** Stable name of this message within the run ("group:<id>" or "notes"): what a retry skips. */
  part: string;
  /** The group whose week it shows (its chart follows it). */
  groupId?: string;
}

const SHOWN_KEYWORDS = 8;
const SHOWN_AWAITING = 5;
const SHOWN_ACTIVE = 5;
const TITLE_MAX = 120;
const NAME_MAX = 120;
const KEYWORD_MAX = 40;
const FALLBACK_MAX = 200;
const n = (x: number) => x.toLocaleString("en-US");
const plural = (x: number, one: string, many = `${one}s`) => `${n(x)} ${x === 1 ? one : many}`;
const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const name = (s: string, fallback: string) => escapeAndTruncate(s.trim() || fallback, NAME_MAX);
const title = (t: ThreadRef) => escapeAndTruncate(t.title.trim() || "Untitled thread", TITLE_MAX);

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** "Tue, Mar 3" for a UTC day key. */
export function formatDay(day: string): string {
  const d = new Date(`${day}T00:00:00.000Z`);
  if (Number.isNaN(d.getTime())) return escapeAndTruncate(day, 20);
  return `${WEEKDAYS[d.getUTCDay()] ?? ""}, ${MONTHS[d.getUTCMonth()] ?? ""} ${d.getUTCDate()}`;
}

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
  return `${TONE_EMOJI[t.tone]} ${capitalise(t.tone)} ${Md.bold(pct)} (${n(t.count)})${delta ? ` · ${delta}` : ""}`;
}

function sentimentSection(w: GroupWeek): string {
  const lines = [Md.bold("Sentiment") + (w.previous ? " (change against the week before)" : "")];
  if (w.change.rated === 0) lines.push("No thread has a sentiment yet.");
  else lines.push(...w.change.tones.map(toneLine));
  if (w.change.unrated > 0) lines.push(Md.italic(`${plural(w.change.unrated, "thread")} not rated yet`));
  if (!w.previous) lines.push(Md.italic("No comparison: the week before could not be read."));
  else if (w.change.previousRated === 0)
    lines.push(Md.italic("No comparison: no thread was rated the week before."));
  return lines.join("\n");
}

function keywordsLine(w: GroupWeek): string | undefined {
  const k = w.stats.keywords.slice(0, SHOWN_KEYWORDS);
  if (k.length === 0) return undefined;
  const parts = k.map((e) => `${escapeAndTruncate(e.keyword, KEYWORD_MAX)} (${n(e.count)})`);
  return `${Md.bold("Top keywords:")} ${parts.join(" · ")}`;
}

function questionsSection(w: GroupWeek, timeZone: string): string {
  const q = w.stats.questions;
  if (q.total === 0) return `${Md.bold("Questions:")} no thread started with a question.`;
  const parts = [
    q.answered && `${questionStatusLabel("answered").emoji} ${n(q.answered)} answered`,
    q.partial && `${questionStatusLabel("partial").emoji} ${n(q.partial)} partially answered`,
    q.unanswered && `${questionStatusLabel("unanswered").emoji} ${n(q.unanswered)} unanswered`,
    q.pending && `${questionStatusLabel("pending").emoji} ${n(q.pending)} awaiting an answer`,
    q.unknown && `${questionStatusLabel(undefined).emoji} ${n(q.unknown)} status unknown`,
  ].filter((p): p is string => typeof p === "string");
  const lines = [
    `${Md.bold("Questions:")} ${plural(q.total, "thread")} started with a question — ${parts.join(" · ")}`,
  ];
  const waiting = w.stats.awaitingAnswer.slice(0, SHOWN_AWAITING);
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
    const open = q.total - q.answered;
    if (open > waiting.length) lines.push(Md.italic(`…and ${n(open - waiting.length)} more`));
  }
  return lines.join("\n");
}

function activeThreadBlocks(w: GroupWeek): KnownBlock[][] {
  return w.stats.mostActive.slice(0, SHOWN_ACTIVE).map((t) => {
    const s = t.sentiment === undefined ? undefined : sentimentLabel(t.sentiment);
    const details = [
      t.messageCount === undefined ? "message count unknown" : plural(t.messageCount, "message"),
      s && `${s.emoji} ${escapeAndTruncate(s.label, 40)}`,
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

function busiestLine(b: BusiestDays): string | undefined {
  if (b.days.length === 0) return undefined;
  const unit = b.source === "messages" ? "message" : "thread";
  const days = b.days.map((d) => `${formatDay(d.day)} (${plural(d.count, unit)})`).join(" · ");
  const how =
    b.source === "messages"
      ? "UTC days, by messages received"
      : "UTC days, by threads' last activity: no message activity was recorded";
  return `${Md.bold("Busiest days:")} ${days}\n${Md.italic(how)}`;
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
  if (quiet.length > 0) lines.push(`:zzz: No threads this week in ${joinNames(quiet)}.`);
  for (const g of groups) {
    if (g.kind !== "failed") continue;
    lines.push(
      `:no_entry: Could not read ${Md.bold(name(g.groupName, g.groupId))}: ${FAILURE_TEXT[g.reason]}`,
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

/** One group's week as a message: counts, sentiment and its change, keywords, questions, threads, days. */
export function renderGroupWeek(
  w: GroupWeek,
  ctx: { range: string; timeZone: string; notes?: string[] },
): RenderedMessage {
  const s = w.stats;
  const groupName = w.groupName.trim() || w.groupId;
  const threadsText = `${Md.bold("Threads")}\n${n(s.threads)}${threadsChange(s.threads, w.previous?.threads)}`;
  const fields = [
    threadsText,
    `${Md.bold("Messages in them")}\n${n(s.messages)}${s.threadsWithoutCount > 0 ? ` (${plural(s.threadsWithoutCount, "thread")} without a count)` : ""}`,
  ];
  const keywords = keywordsLine(w);
  const head = toKnownBlocks(
    Blocks.Header({ text: plainText(`Weekly summary: ${groupName}`, LIMITS.headerText) }),
    Blocks.Context().elements(`${ctx.range} (${escapeAndTruncate(ctx.timeZone, 60)}) · the last 7 days`),
    Blocks.Section().fields(fields),
    Blocks.Section({ text: sentimentSection(w) }),
    keywords !== undefined && Blocks.Section({ text: keywords }),
    Blocks.Section({ text: questionsSection(w, ctx.timeZone) }),
    s.mostActive.length > 0 && Blocks.Section({ text: Md.bold("Most active threads") }),
  );
  const busiest = busiestLine(w.busiest);
  const tail = toKnownBlocks(
    busiest !== undefined && Blocks.Section({ text: busiest }),
    (ctx.notes?.length ?? 0) > 0 && Blocks.Context().elements((ctx.notes ?? []).join("\n")),
  );
  const { blocks } = fitList({
    head,
    items: activeThreadBlocks(w),
    tail,
    more: (hidden) => `…and ${n(hidden)} more active threads`,
  });
  const text = escapeAndTruncate(
    `Weekly summary for ${groupName}: ${plural(s.threads, "thread")}, ${plural(s.messages, "message")} (${ctx.range})`,
    FALLBACK_MAX,
  );
  return { text, blocks };
}

/**
 * A channel's weekly summary as messages, in posting order. A quiet week (no group had a
 * thread) is one line. Otherwise each group with threads gets its own message (a message
 * holds at most 50 blocks, and one group's week fills a good part of that); groups that were
 * quiet or could not be read are named at the end of the last one, or in a message of their
 * own when no group had threads.
 */
export function renderWeeklyReport(r: WeeklyReport): WeeklyMessage[] {
  const range = describeRange(r.window.start, r.window.end, r.timeZone);
  const summaries = r.groups.flatMap((g) => (g.kind === "summary" ? [g.week] : []));
  const others = notes(r.groups);
  if (summaries.length === 0) {
    const quiet = r.groups.every((g) => g.kind === "empty");
    const text =
      r.groups.length === 0
        ? `:zzz: Weekly summary, ${range}: this channel follows no chat group.`
        : quiet
          ? `:zzz: Weekly summary, ${range}: a quiet week, no threads in ${joinNames(
              r.groups.map((g) =>
                Md.bold(
                  g.kind === "summary"
                    ? name(g.week.groupName, g.week.groupId)
                    : name(g.groupName, g.groupId),
                ),
              ),
            )}.`
          : [`${Md.bold("Weekly summary")}, ${range}`, ...others].join("\n");
    return [
      {
        part: "notes",
        // Already escaped: only shortened, never escaped twice.
        text: truncateMrkdwn(text.replace(/\*/g, "").split("\n")[0] ?? "", FALLBACK_MAX),
        blocks: toKnownBlocks(Blocks.Section({ text })),
      },
    ];
  }
  return summaries.map((w, i) => {
    const last = i === summaries.length - 1;
    const m = renderGroupWeek(w, { range, timeZone: r.timeZone, ...(last ? { notes: others } : {}) });
    return { ...m, part: `group:${w.groupId}`, groupId: w.groupId };
  });
}
