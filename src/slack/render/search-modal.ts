import { Blocks, Elements, Md } from "slack-block-builder";
import { sentimentLabel } from "../../domain/sentiment.js";
import type { SearchMessageHit, SearchThreadHit } from "../../insight/schemas.js";
import { ACTIONS } from "../action-ids.js";
import { encodeShareState, encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, plainText } from "../mrkdwn.js";
import {
  encodeSearchModalState,
  SEARCH_MODAL_CALLBACK,
  SHARE_PICK_CALLBACK,
  type SearchModalState,
} from "../personal-ids.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList } from "./limits.js";
import { shareOfThread } from "./search-results.js";
import type { ViewPayload } from "./view-payload.js";
import { EMOJI, plural, readerDate } from "./wording.js";

/*
 * The search modal of both shortcuts: a form (search words, where to search, where to share)
 * on top, then the matching threads, each with its group, sentiment and activity, View
 * messages and Share in channel. Opened at once (loading) and updated when the service answers.
 * Pure.
 */

export const SEARCH_FIELDS = { query: "query", groups: "groups", shareTo: "share_to" } as const;
export const SEARCH_INPUT = "value";
/** The group choices that are not one group. */
export const GROUP_CHOICES = { channel: "channel", all: "all" } as const;

/** Modals allow 100 blocks; the JSON budget is ours (as Home's). */
const MODAL_BUDGET = { maxBlocks: 100, maxJson: 40_000 } as const;
/** Threads shown: enough to scan, few enough to read in a modal. */
export const SEARCH_MODAL_THREADS = 10;
const TITLE = "Search the community";
const QUERY_MAX = 500;

export type SearchHitInGroup<T> = T & { groupName: string; groupId: string };

export interface SearchFormState {
  query: string;
  /** GROUP_CHOICES.channel / .all, or a group id. */
  groups: string;
  /** The groups the workspace follows, for the picker (id, name). */
  followed: readonly { id: string; name: string }[];
  /** Whether the modal came from a channel that follows groups ("this channel's groups"). */
  channelFollows: boolean;
  /** The channel the modal came from: Share in channel posts there unless another is picked. */
  channelId?: string | undefined;
}

type Option = { text: { type: "plain_text"; text: string }; value: string };
const option = (value: string, text: string): Option => ({
  text: { type: "plain_text", text: plainText(text, 75) },
  value,
});

function groupOptions(f: SearchFormState): Option[] {
  return [
    ...(f.channelFollows ? [option(GROUP_CHOICES.channel, "This channel's groups")] : []),
    option(GROUP_CHOICES.all, "Every group this workspace follows"),
    ...f.followed.slice(0, 90).map((g) => option(g.id, g.name || g.id)),
  ];
}

function form(f: SearchFormState): Record<string, unknown>[] {
  const options = groupOptions(f);
  const initial = options.find((o) => o.value === f.groups) ?? options[0];
  return [
    {
      type: "input",
      block_id: SEARCH_FIELDS.query,
      label: { type: "plain_text", text: "Search for" },
      element: {
        type: "plain_text_input",
        action_id: SEARCH_INPUT,
        max_length: QUERY_MAX,
        placeholder: { type: "plain_text", text: "replicas fall behind after upgrading" },
        ...(f.query ? { initial_value: f.query.slice(0, QUERY_MAX) } : {}),
      },
    },
    {
      type: "input",
      block_id: SEARCH_FIELDS.groups,
      label: { type: "plain_text", text: "In" },
      element: {
        type: "static_select",
        action_id: SEARCH_INPUT,
        options,
        ...(initial ? { initial_option: initial } : {}),
      },
    },
    {
      type: "input",
      block_id: SEARCH_FIELDS.shareTo,
      optional: true,
      label: { type: "plain_text", text: "Share results in" },
      hint: { type: "plain_text", text: "Share in channel posts a result there, for everyone to see." },
      element: {
        type: "conversations_select",
        action_id: SEARCH_INPUT,
        filter: { include: ["public", "private"], exclude_bot_users: true },
        ...(f.channelId && !f.channelId.startsWith("D") ? { initial_conversation: f.channelId } : {}),
      },
    },
  ];
}

const modal = (state: SearchModalState, blocks: unknown[], withSubmit: boolean): ViewPayload => ({
  type: "modal",
  callback_id: SEARCH_MODAL_CALLBACK,
  private_metadata: encodeSearchModalState(state),
  title: { type: "plain_text", text: TITLE },
  ...(withSubmit ? { submit: { type: "plain_text", text: "Search" } } : {}),
  close: { type: "plain_text", text: "Close" },
  blocks,
});

/** While the service searches: what is being looked for, and where. */
export function renderSearchLoading(o: {
  query: string;
  where: string;
  state: SearchModalState;
}): ViewPayload {
  const blocks = toKnownBlocks(
    Blocks.Section({
      text: `${EMOJI.onItsWay} Searching ${escapeAndTruncate(o.where, 200)} for “${escapeAndTruncate(o.query, 300)}”…`,
    }),
  );
  return modal(o.state, blocks, false);
}

/** The global shortcut's first view, and any view that needs words first: the form alone. */
export function renderSearchForm(f: SearchFormState, o: { notice?: string } = {}): ViewPayload {
  const notice = o.notice ? toKnownBlocks(Blocks.Section({ text: o.notice })) : [];
  return modal({ ...(f.channelId ? { c: f.channelId } : {}) }, [...notice, ...form(f)], true);
}

/** One result: a thread (or the thread of a matching message) with what a reader scans first. */
export interface SearchEntry {
  id: string;
  groupId: string;
  groupName: string;
  title: string;
  summary: string | undefined;
  sentiment: string | undefined;
  lastMessageDate: string | undefined;
  messageCount: number | undefined;
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);
const int = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined);

/**
 * The threads to show, best first: thread hits, then the threads of message hits not already
 * among them (a message names its thread). Sentiment and activity come from what the service
 * sent with each hit (fields "not shown" in its interface, read when present).
 */
export function searchEntries(
  threads: readonly SearchHitInGroup<SearchThreadHit>[],
  messages: readonly SearchHitInGroup<SearchMessageHit>[],
): SearchEntry[] {
  const out: SearchEntry[] = threads.map((h) => ({
    id: h.id,
    groupId: h.groupId,
    groupName: h.groupName,
    title: h.title,
    summary: h.summary,
    sentiment: str(h.raw.sentiment),
    lastMessageDate: str(h.raw.lastMessageDate),
    messageCount: int(h.raw.messageCount),
  }));
  const seen = new Set(out.map((e) => `${e.groupId} ${e.id}`));
  for (const m of messages) {
    if (!m.threadId || seen.has(`${m.groupId} ${m.threadId}`)) continue;
    seen.add(`${m.groupId} ${m.threadId}`);
    out.push({
      id: m.threadId,
      groupId: m.groupId,
      groupName: m.groupName,
      title: m.threadTitle ?? "",
      summary: m.text,
      sentiment: undefined,
      lastMessageDate: m.date,
      messageCount: undefined,
    });
  }
  return out;
}

function entryBlocks(e: SearchEntry): KnownBlock[] {
  const title = e.title.replace(/\s+/g, " ").trim() || "Untitled thread";
  const facts = [
    `${EMOJI.group} ${escapeAndTruncate(e.groupName, 80)}`,
    e.sentiment !== undefined
      ? `${sentimentLabel(e.sentiment).emoji} ${escapeAndTruncate(sentimentLabel(e.sentiment).label, 40)}`
      : "",
    e.messageCount !== undefined ? plural(e.messageCount, "message") : "",
    e.lastMessageDate ? `last activity ${readerDate(e.lastMessageDate)}` : "",
  ].filter(Boolean);
  const summary = e.summary?.trim()
    ? `\n${escapeAndTruncate(e.summary.replace(/\s+/g, " ").trim(), 300)}`
    : "";
  return toKnownBlocks(
    Blocks.Section({ text: `${Md.bold(escapeAndTruncate(title, 150))}\n${facts.join(" · ")}${summary}` }),
    Blocks.Actions().elements(
      Elements.Button({
        text: "View messages",
        actionId: ACTIONS.viewMessages,
        value: encodeThreadRef({ g: e.groupId, t: e.id, n: title }),
      }),
      Elements.Button({
        text: "Share in channel",
        actionId: ACTIONS.share,
        value: encodeShareState(
          shareOfThread({
            kind: "thread",
            id: e.id,
            title,
            summary: e.summary,
            score: undefined,
            raw: {},
            groupName: e.groupName,
            groupId: e.groupId,
          }),
        ),
      }),
    ),
  );
}

export interface SearchResultsView {
  form: SearchFormState;
  /** Where it searched, in words ("Lumen DB Support", "3 chat groups"). */
  where: string;
  entries: readonly SearchEntry[];
  /** Groups whose search failed, with the reason in plain words. */
  failures: readonly { name: string; reply: string }[];
  /** The message's text was cut to its first words. */
  cut?: boolean;
}

/** The form again (to refine), then what was found: threads with View messages and Share in channel. */
export function renderSearchResultsModal(v: SearchResultsView): ViewPayload {
  const q = escapeAndTruncate(v.form.query.replace(/\s+/g, " "), 200);
  const shown = v.entries.slice(0, SEARCH_MODAL_THREADS);
  const head = toKnownBlocks(
    Blocks.Divider(),
    Blocks.Section({
      text:
        v.entries.length === 0
          ? `No thread in ${escapeAndTruncate(v.where, 200)} matches “${q}”. Try other words.`
          : `${Md.bold(plural(v.entries.length, "thread"))} in ${escapeAndTruncate(v.where, 200)} match “${q}”${v.entries.length > shown.length ? `; the best ${shown.length} below` : ""}.`,
    }),
    v.cut === true && Blocks.Context().elements("The message was long: its first words were searched."),
    v.failures.length > 0 &&
      Blocks.Context().elements(
        v.failures.map((f) => `${EMOJI.problem} ${escapeAndTruncate(f.name, 80)}: ${f.reply}`).join("\n"),
      ),
  );
  const formBlocks = form(v.form) as unknown as KnownBlock[];
  const { blocks } = fitList({
    head: [...formBlocks, ...head],
    items: shown.map(entryBlocks),
    budget: MODAL_BUDGET,
  });
  return modal({ ...(v.form.channelId ? { c: v.form.channelId } : {}) }, blocks, true);
}

/** Nothing could be searched: the reason, and the form to try again. */
export function renderSearchProblem(f: SearchFormState, text: string): ViewPayload {
  return renderSearchForm(f, { notice: text });
}

/** The small modal stacked on the results when no channel was picked yet: where to share. */
export function renderSharePicker(shareValue: string): ViewPayload {
  return {
    type: "modal",
    callback_id: SHARE_PICK_CALLBACK,
    // The result to share (its button's value, at most 2,000 characters: within the 3,000 allowed).
    private_metadata: shareValue,
    title: { type: "plain_text", text: "Share in channel" },
    submit: { type: "plain_text", text: "Share" },
    close: { type: "plain_text", text: "Back" },
    blocks: [
      {
        type: "input",
        block_id: SEARCH_FIELDS.shareTo,
        label: { type: "plain_text", text: "Share in" },
        hint: { type: "plain_text", text: "The result is posted there for everyone, with your name." },
        element: {
          type: "conversations_select",
          action_id: SEARCH_INPUT,
          filter: { include: ["public", "private"], exclude_bot_users: true },
        },
      },
    ],
  };
}
