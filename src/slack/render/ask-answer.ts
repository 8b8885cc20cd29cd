import { Blocks, Elements, Md } from "slack-block-builder";
import type { AnswerThread, AskAnswer, AskQuestion, PeriodFigures } from "../../ask/types.js";
import { questionStatusLabel, sentimentLabel, TONE_EMOJI } from "../../domain/sentiment.js";
import { percentChange, sentimentChange } from "../../domain/weekly-compare.js";
import { ACTIONS } from "../action-ids.js";
import { encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { EMOJI, plural, readerDate } from "./wording.js";

/*
 * The assistant's answer: first what it understood (groups, period, feeling or unanswered,
 * topic), so a wrong reading shows at once; then the figures, each from the listings; then a
 * handful of compact thread cards with View messages and the service's own summary, quoted as
 * the service's. Pure: the answer in, Block Kit out.
 */

/** Thread cards one answer (or one "Show more") shows. */
export const ASK_CARDS_SHOWN = 5;
const TITLE_MAX = 150;
const SUMMARY_MAX = 280;
const NAME_MAX = 60;
const TOPIC_MAX = 100;
const NAMES_SHOWN = 3;
const DAY_MS = 86_400_000;

const bold = (name: string) => Md.bold(escapeAndTruncate(name, NAME_MAX));

function namesList(names: string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).map(bold);
  const rest = names.length - shown.length;
  if (rest > 0) return `${shown.join(", ")} and ${plural(rest, "more group")}`;
  return shown.length <= 1 ? (shown[0] ?? "") : `${shown.slice(0, -1).join(", ")} and ${shown.at(-1) ?? ""}`;
}

/** "In *Lumen DB Support*": the groups, and where they came from when not named. */
function whereOf(q: AskQuestion): string {
  const names = q.groups.map((g) => g.name);
  const list = namesList(names);
  switch (q.scope) {
    case "channel":
      // A channel link: Slack shows its name, in the reader's own client.
      return q.scopeChannelId && /^[CG][A-Z0-9]+$/.test(q.scopeChannelId)
        ? `In ${list} (followed in <#${q.scopeChannelId}>)`
        : `In ${list} (followed in this channel)`;
    case "workspace":
      return names.length === 1
        ? `In ${list} (the group this workspace follows)`
        : `In ${list} (every group this workspace follows)`;
    default:
      return `In ${list}`;
  }
}

/** "negative unanswered questions", "questions", "" (every thread). */
function whatOf(q: Pick<AskQuestion, "tone" | "unanswered" | "questionsOnly">): string {
  const noun = q.unanswered ? "unanswered questions" : q.questionsOnly ? "questions" : "threads";
  if (q.tone) return `${q.tone} ${noun}`;
  return noun === "threads" ? "" : noun;
}

/** The answer's first line, what was understood: "In *Lumen DB Support*, Nov 20–26, about “pricing”:". */
export function understoodLine(q: AskQuestion): string {
  const what = whatOf(q);
  const about = q.topic ? `about “${escapeAndTruncate(q.topic, TOPIC_MAX)}”` : "";
  const tail = [what, about].filter(Boolean).join(" ");
  return `${whereOf(q)}, ${escapeAndTruncate(q.range.label, 80)}${tail ? `, ${tail}` : ""}:`;
}

/** "in Nov 13–19", "in October", but "today (Nov 26)", "the last 24 hours": a period after a noun. */
function during(label: string): string {
  const l = escapeAndTruncate(label, 80);
  return /^(?:today|yesterday|the )/.test(l) ? l : `in ${l}`;
}

/** "20% more than in Nov 13–19 (10)", "none in Nov 13–19". */
function changeText(current: number, previous: number, previousLabel: string): string {
  const when = during(previousLabel);
  if (previous === 0) return current === 0 ? `none ${when} either` : `none ${when}`;
  const pct = percentChange(current, previous) ?? 0;
  if (pct > 0) return `${pct}% more than ${when} (${previous})`;
  if (pct < 0) return `${-pct}% fewer than ${when} (${previous})`;
  return `as many as ${when} (${previous})`;
}

const TONE_ORDER = ["positive", "neutral", "mixed", "negative"] as const;

function toneSplit(f: PeriodFigures): string {
  const parts = TONE_ORDER.filter((t) => f.tones[t] > 0).map((t) => `${TONE_EMOJI[t]} ${f.tones[t]} ${t}`);
  if (f.tones.unknown > 0) parts.push(`${f.tones.unknown} not rated yet`);
  return parts.join(" · ");
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** The figures: threads, messages and the change; the sentiment split; unanswered; by group. */
function figureLines(a: AskAnswer): string[] {
  const { current, previous, question: q } = a;
  if (current.threads === 0) {
    const before =
      previous.threads > 0 ? ` (${plural(previous.threads, "thread")} ${during(q.range.previousLabel)})` : "";
    // A month or more already: a longer period is not the likely fix.
    const hint =
      q.range.to - q.range.from < 25 * DAY_MS
        ? "Try a longer period (“last 30 days”) or fewer words."
        : "Try other words.";
    return [`No matching thread ${during(q.range.label)}${before}. ${hint}`];
  }
  const messages =
    current.withoutCount > 0
      ? `${plural(current.messages, "message")} (${plural(current.withoutCount, "thread")} without a count)`
      : plural(current.messages, "message");
  const lines = [
    `${Md.bold(plural(current.threads, "thread"))} · ${messages} · ${changeText(current.threads, previous.threads, q.range.previousLabel)}`,
  ];
  if (!q.tone) {
    lines.push(toneSplit(current));
    const change = sentimentChange(current.tones, previous.tones);
    const negative = change.tones.find((t) => t.tone === "negative");
    if (negative && change.rated > 0 && (negative.count > 0 || (negative.previousCount ?? 0) > 0)) {
      const before =
        negative.previousShare === undefined
          ? ""
          : ` (${percent(negative.previousShare)} ${during(q.range.previousLabel)})`;
      lines.push(`Negative: ${percent(negative.share)} of rated threads${before}`);
    }
  }
  if (!q.unanswered && current.unanswered > 0) {
    lines.push(`${EMOJI.awaitingAnswer} ${plural(current.unanswered, "unanswered question")}`);
  }
  if (a.byGroup.length > 1) {
    lines.push(
      `By group: ${a.byGroup.map((g) => `${escapeAndTruncate(g.name, NAME_MAX)} ${g.threads}`).join(" · ")}`,
    );
  }
  return lines;
}

function notes(a: AskAnswer): string[] {
  const out: string[] = [];
  for (const c of a.limits.cappedGroups) {
    out.push(
      `${escapeAndTruncate(c.name, NAME_MAX)}: counted among its newest ${plural(c.read, "thread")} only.`,
    );
  }
  if (a.limits.searchCapped) out.push("Topic matches are the service's best 300 search results.");
  if (a.limits.groupsLeftOut > 0) {
    out.push(
      `${plural(a.limits.groupsLeftOut, "more group")} not read (at most 12 a question): name one to ask about it.`,
    );
  }
  for (const f of a.failures) out.push(`${EMOJI.problem} ${escapeAndTruncate(f.name, NAME_MAX)}: ${f.reply}`);
  return out;
}

/** One compact card: title, tone, counts, question status, last activity, and the service's summary. */
function card(t: AnswerThread, multiGroup: boolean): KnownBlock[] {
  const th = t.thread;
  const title = th.title.trim() || "Untitled thread";
  const mood = sentimentLabel(th.sentiment);
  const facts = [
    `${mood.emoji} ${escapeAndTruncate(mood.label, 40)}`,
    th.messageCount === undefined ? undefined : plural(th.messageCount, "message"),
    th.isQuestionLed
      ? `${questionStatusLabel(th.questionResponseStatus).emoji} ${escapeAndTruncate(questionStatusLabel(th.questionResponseStatus).label.toLowerCase(), 40)}`
      : undefined,
    th.lastMessageDate ? `last activity ${readerDate(th.lastMessageDate)}` : undefined,
    multiGroup ? `_${escapeAndTruncate(t.groupName, NAME_MAX)}_` : undefined,
  ].filter((x): x is string => x !== undefined);
  const summary = th.summary?.replace(/\s+/g, " ").trim();
  const quoted = summary
    ? `The service's AI summary: “${escapeAndTruncate(summary, SUMMARY_MAX)}”`
    : "No summary from the service yet.";
  return toKnownBlocks(
    Blocks.Section({
      text: `${Md.bold(escapeAndTruncate(title, TITLE_MAX))}\n${facts.join(" · ")}`,
    }).accessory(
      Elements.Button({
        text: "View messages",
        actionId: ACTIONS.viewMessages,
        value: encodeThreadRef({ g: t.groupId, t: th.id, n: title }),
      }),
    ),
    Blocks.Context().elements(quoted),
  );
}

export interface AskAnswerView {
  answer: AskAnswer;
  /** Cards before this one were shown already ("Show more" pressed). */
  offset?: number;
  /** The "Show more" button's value; absent: no button. */
  moreValue?: string | undefined;
}

/**
 * The answer (offset 0) or its next cards (offset > 0): the understood line first, the figures
 * (first page only), then up to ASK_CARDS_SHOWN cards and "N more" with a button to show them.
 */
export function renderAskAnswer(v: AskAnswerView): RenderedMessage {
  const a = v.answer;
  const offset = v.offset ?? 0;
  const first = understoodLine(a.question);
  const total = a.threads.length;
  const cards = a.threads.slice(offset, offset + ASK_CARDS_SHOWN);
  const multi = new Set(a.threads.map((t) => t.groupId)).size > 1;
  const rest = total - offset - cards.length;
  const head =
    offset === 0
      ? toKnownBlocks(
          Blocks.Section({ text: `${first}\n${figureLines(a).join("\n")}` }),
          notes(a).length > 0 && Blocks.Context().elements(notes(a).join("\n")),
        )
      : toKnownBlocks(
          Blocks.Section({ text: first }),
          Blocks.Context().elements(`Threads ${offset + 1}–${offset + cards.length} of ${total}`),
        );
  const tail =
    rest > 0
      ? toKnownBlocks(
          Blocks.Context().elements(`…and ${plural(rest, "more matching thread")}.`),
          v.moreValue !== undefined &&
            Blocks.Actions().elements(
              Elements.Button({
                text: `Show ${Math.min(rest, ASK_CARDS_SHOWN)} more`,
                actionId: ACTIONS.askMore,
                value: v.moreValue,
              }),
            ),
        )
      : [];
  const fitted = fitList({
    head,
    items: cards.map((t) => [...toKnownBlocks(Blocks.Divider()), ...card(t, multi)]),
    tail,
  });
  const plain = first.replace(/\*/g, "");
  const text =
    offset === 0
      ? `${plain} ${plural(a.current.threads, "thread")}`
      : `${plain} threads ${offset + 1}–${offset + cards.length} of ${total}`;
  return { text, blocks: fitted.blocks };
}

/** A reply without figures (what it can be asked, a question it cannot read): already escaped. */
export function renderAskText(mrkdwn: string): RenderedMessage {
  return { text: mrkdwn.split("\n")[0] ?? mrkdwn, blocks: toKnownBlocks(Blocks.Section({ text: mrkdwn })) };
}
