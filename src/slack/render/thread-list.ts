import { Blocks, Elements, Md } from "slack-block-builder";
import type { Pagination, Range, Thread } from "../../insight/schemas.js";
import { describeFilters, hasFilters } from "../../domain/filters.js";
import { questionStatusLabel, sentimentLabel } from "../../domain/sentiment.js";
import { ACTIONS } from "../action-ids.js";
import { encodeThreadRef, encodeThreadsState, type ThreadsState } from "../button-values.js";
import { escapeAndTruncate, plainText } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList, LIMITS } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { EMOJI, plural, readerDate } from "./wording.js";

/** Threads on one page: with the buttons and excerpts this stays far inside the message budget. */
export const THREADS_PAGE_SIZE = 8;
const EXCERPT_MAX = 280;
const TITLE_MAX = 150;
const GROUP_NAME_MAX = 100;

export const RANGE_LABELS: Record<Range, string> = {
  last7Days: "the last 7 days",
  last30Days: "the last 30 days",
  last3Months: "the last 3 months",
  last6Months: "the last 6 months",
  allTime: "all time",
};

export type ThreadPageResult =
  | {
      ok: true;
      threads: Thread[];
      pagination: Pagination | undefined;
      /** Set for a filtered listing: how many threads were read to find the matching ones. */
      filtered?: { read: number; complete: boolean };
    }
  | { ok: false; error: string };

export interface ThreadListInput {
  /** The listing's state: range, page, and the groups it steps through (current one at `i`). */
  state: ThreadsState;
  /** The current group's name when known better than the state's (cut) one. */
  groupName?: string;
  result: ThreadPageResult;
}

const participantsOf = (t: Thread): number | undefined =>
  typeof t.participantCount === "number" && Number.isFinite(t.participantCount)
    ? t.participantCount
    : undefined;

function threadItem(t: Thread, groupId: string): KnownBlock[] {
  const title = t.title.trim() || "Untitled thread";
  const s = sentimentLabel(t.sentiment);
  const facts = [
    `${s.emoji} ${escapeAndTruncate(s.label, 60)}`,
    t.messageCount === undefined ? "– messages" : plural(t.messageCount, "message"),
    participantsOf(t) === undefined ? "– participants" : plural(participantsOf(t) ?? 0, "participant"),
  ];
  if (t.isQuestionLed) {
    const q = questionStatusLabel(t.questionResponseStatus);
    facts.push(`${q.emoji} question ${escapeAndTruncate(q.label.toLowerCase(), 40)}`);
  }
  const summary = t.summary?.replace(/\s+/g, " ").trim();
  const excerpt = summary ? escapeAndTruncate(summary, EXCERPT_MAX) : Md.italic("No summary yet.");
  const dates = [
    t.firstMessageDate && `First message ${readerDate(t.firstMessageDate)}`,
    t.lastMessageDate && `Last activity ${readerDate(t.lastMessageDate)}`,
  ].filter((x): x is string => typeof x === "string" && x !== "");
  return toKnownBlocks(
    Blocks.Section({
      text: `${Md.bold(escapeAndTruncate(title, TITLE_MAX))}\n${facts.join(" · ")}\n${excerpt}`,
    }).accessory(
      Elements.Button({
        text: "View messages",
        actionId: ACTIONS.viewMessages,
        value: encodeThreadRef({ g: groupId, t: t.id, n: title }),
      }),
    ),
    dates.length > 0 && Blocks.Context().elements(dates.join(" · ")),
  );
}

/** Pages of the current group: from the service's pagination, or guessed from a full page. */
function pageCount(result: ThreadPageResult, page: number): { total: number | undefined; hasNext: boolean } {
  if (!result.ok) return { total: undefined, hasNext: false };
  const p = result.pagination;
  if (p) return { total: p.totalPages, hasNext: page < p.totalPages };
  return { total: undefined, hasNext: result.threads.length >= THREADS_PAGE_SIZE };
}

function navigation(input: ThreadListInput, hasNext: boolean): KnownBlock[] {
  const { state } = input;
  const buttons = [];
  const to = (change: Partial<ThreadsState>) => encodeThreadsState({ ...state, ...change });
  if (state.p > 1) {
    buttons.push(
      Elements.Button({
        text: "‹ Previous",
        actionId: `${ACTIONS.threadsPage}.prev`,
        value: to({ p: state.p - 1 }),
      }),
    );
  }
  if (hasNext) {
    buttons.push(
      Elements.Button({
        text: "Next ›",
        actionId: `${ACTIONS.threadsPage}.next`,
        value: to({ p: state.p + 1 }),
      }),
    );
  }
  const prevGroup = state.g[state.i - 1];
  if (prevGroup) {
    buttons.push(
      Elements.Button({
        text: plainText(`‹ ${prevGroup[1] || "Previous group"}`, LIMITS.buttonText),
        actionId: `${ACTIONS.threadsPage}.prev-group`,
        value: to({ i: state.i - 1, p: 1 }),
      }),
    );
  }
  const nextGroup = state.g[state.i + 1];
  if (nextGroup) {
    buttons.push(
      Elements.Button({
        text: plainText(`${nextGroup[1] || "Next group"} ›`, LIMITS.buttonText),
        actionId: `${ACTIONS.threadsPage}.next-group`,
        value: to({ i: state.i + 1, p: 1 }),
      }),
    );
  }
  return buttons.length > 0 ? toKnownBlocks(Blocks.Actions().elements(...buttons)) : [];
}

/**
 * One page of one group's threads: title, sentiment, counts, dates and a summary excerpt per
 * thread with a "View messages" button; Previous/Next (and, when the channel follows several
 * groups, buttons to the neighbouring groups) carry the state in their values.
 */
export function renderThreadList(input: ThreadListInput): RenderedMessage {
  const { state, result } = input;
  const current = state.g[state.i];
  const groupId = current?.[0] ?? "";
  const groupName = input.groupName?.trim() || current?.[1] || groupId;
  const name = escapeAndTruncate(groupName, GROUP_NAME_MAX);
  const range = RANGE_LABELS[state.r];
  const { total, hasNext } = pageCount(result, state.p);
  const pageText = total ? `page ${state.p} of ${total}` : `page ${state.p}`;
  const filters = state.f && hasFilters(state.f) ? describeFilters(state.f) : undefined;
  const scan = result.ok ? result.filtered : undefined;
  const totalThreads =
    result.ok && result.pagination
      ? ` · ${plural(result.pagination.total, filters ? "matching thread" : "thread")}${
          scan && !scan.complete ? ` among the newest ${plural(scan.read, "thread")} read` : ""
        }`
      : "";
  const groupPos =
    state.g.length > 1 ? ` · group ${state.i + 1} of ${state.g.length} this channel follows` : "";

  const head = toKnownBlocks(
    Blocks.Section({
      text: `${Md.bold(`Threads in ${name}`)} — ${range}${filters ? `\nFiltered: ${escapeAndTruncate(filters, 600)}` : ""}`,
    }),
    Blocks.Context().elements(`${pageText}${totalThreads}${groupPos}`),
  );
  const tail = navigation(input, hasNext);

  if (!result.ok) {
    const blocks = [
      ...head,
      ...toKnownBlocks(Blocks.Section({ text: `${EMOJI.problem} ${result.error}` })),
      ...tail,
    ];
    return { text: `Threads in ${name}: ${result.error}`, blocks };
  }
  if (result.threads.length === 0) {
    const hint =
      state.p > 1
        ? "No more threads on this page."
        : filters
          ? `No thread in ${range} matches these filters. Try a longer range (\`30d\`, \`3m\`, \`all\`) or fewer filters.`
          : state.r === "allTime"
            ? "This group has no summarised threads yet."
            : `No threads in ${range}. Try a longer range, e.g. \`/insight threads 30d ${escapeAndTruncate(groupName, 60)}\`.`;
    return {
      text: `No threads in ${name} for ${range}`,
      blocks: [...head, ...toKnownBlocks(Blocks.Section({ text: hint })), ...tail],
    };
  }
  const fitted = fitList({
    head,
    items: result.threads.map((t) => threadItem(t, groupId)),
    tail,
    more: (hidden) => `…and ${plural(hidden, "more thread")} on this page (too long to show).`,
  });
  return { text: `Threads in ${name} (${range}), ${pageText}`, blocks: fitted.blocks };
}
