import { Blocks, Elements, Md } from "slack-block-builder";
import type { SearchMessageHit, SearchThreadHit } from "../../insight/schemas.js";
import { ACTIONS } from "../action-ids.js";
import { encodeShareState, encodeThreadRef, type ShareState } from "../button-values.js";
import { foldText } from "../../domain/filters.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { EMOJI, plural, readerDate } from "./wording.js";

/** Results shown per kind: enough to scan, few enough to fit one message with buttons. */
export const SEARCH_SHOWN_PER_KIND = 6;
const EXCERPT_MAX = 300;
const SHARE_TEXT_MAX = 900;
const QUERY_MAX = 100;

/** A hit with the group it was found in (its id names the thread for View messages). */
export type GroupedThreadHit = SearchThreadHit & { groupName: string; groupId: string };
export type GroupedMessageHit = SearchMessageHit & { groupName: string; groupId: string };

export interface SearchResultsInput {
  query: string;
  groups: { id: string; name: string }[];
  threads: GroupedThreadHit[];
  messages: GroupedMessageHit[];
  /** Groups whose search failed, with the plain-words reason. */
  failures: { name: string; reply: string }[];
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** A message as compared for near-duplicates: case, accents, punctuation and spacing ignored. */
const comparable = (s: string) =>
  foldText(s)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

/**
 * Messages that say the same thing (a repeated paste, a bot echo, a copy with another
 * punctuation) folded into the first, best-ranked one, with how many copies it stands for.
 */
export function foldNearDuplicates<T extends { text: string }>(
  hits: readonly T[],
): { hit: T; copies: number }[] {
  const out: { hit: T; copies: number; key: string }[] = [];
  for (const hit of hits) {
    const key = comparable(hit.text);
    const same = out.find(
      (o) =>
        o.key === key ||
        (key.length >= 40 && o.key.length >= 40 && (o.key.startsWith(key) || key.startsWith(o.key))),
    );
    if (same && key !== "") same.copies++;
    else out.push({ hit, copies: 1, key });
  }
  return out.map(({ hit, copies }) => ({ hit, copies }));
}

/**
 * Threads with the same title (the same question asked again, a bot's recurring report)
 * folded into the first, best-ranked one, with how many it stands for.
 */
export function foldSameTitles<T extends { title: string; groupId: string }>(
  hits: readonly T[],
): { hit: T; copies: number }[] {
  const out: { hit: T; copies: number; key: string }[] = [];
  for (const hit of hits) {
    const key = comparable(hit.title);
    const same = key === "" ? undefined : out.find((o) => o.key === key);
    if (same) same.copies++;
    else out.push({ hit, copies: 1, key });
  }
  return out.map(({ hit, copies }) => ({ hit, copies }));
}

/** What a "Share in channel" button carries: the raw (unescaped) result, re-escaped when posted. */
export function shareOfThread(h: GroupedThreadHit): ShareState {
  return {
    k: "thread",
    gn: h.groupName,
    ti: oneLine(h.title) || "Untitled thread",
    tx: oneLine(h.summary ?? "").slice(0, SHARE_TEXT_MAX),
  };
}

export function shareOfMessage(h: GroupedMessageHit): ShareState {
  return {
    k: "message",
    gn: h.groupName,
    ...(h.threadTitle ? { ti: oneLine(h.threadTitle) } : {}),
    tx: h.text.trim().slice(0, SHARE_TEXT_MAX),
    ...(h.author ? { a: oneLine(h.author) } : {}),
    ...(h.date ? { d: h.date.slice(0, 60) } : {}),
  };
}

const shareButton = (s: ShareState) =>
  Elements.Button({ text: "Share in channel", actionId: ACTIONS.share, value: encodeShareState(s) });

/** View messages of a hit's thread: the same modal as `threads` and the cards. */
const viewButton = (groupId: string, threadId: string, title: string) =>
  Elements.Button({
    text: "View messages",
    actionId: ACTIONS.viewMessages,
    value: encodeThreadRef({ g: groupId, t: threadId, n: title }),
  });

function threadItem(h: GroupedThreadHit, copies: number, multiGroup: boolean): KnownBlock[] {
  const raw = oneLine(h.title) || "Untitled thread";
  const title = escapeAndTruncate(raw, 150);
  const excerpt = h.summary?.trim()
    ? escapeAndTruncate(oneLine(h.summary), EXCERPT_MAX)
    : Md.italic("No summary.");
  // Scores are the service's internal ranking: the order says it, the number would not help.
  const meta = multiGroup ? `_${escapeAndTruncate(h.groupName, 80)}_` : "";
  const folded = copies > 1 ? `_${plural(copies - 1, "more thread")} with the same title_` : "";
  return toKnownBlocks(
    Blocks.Section({ text: [`${Md.bold(title)}\n${excerpt}`, meta, folded].filter(Boolean).join("\n") }),
    Blocks.Actions().elements(viewButton(h.groupId, h.id, raw), shareButton(shareOfThread(h))),
  );
}

function messageItem(h: GroupedMessageHit, copies: number, multiGroup: boolean): KnownBlock[] {
  const who = Md.bold(escapeAndTruncate(h.author?.trim() || "Unknown author", 80));
  const when = h.date ? ` · ${readerDate(h.date)}` : "";
  const thread = h.threadTitle ? ` · in _${escapeAndTruncate(oneLine(h.threadTitle), 100)}_` : "";
  const group = multiGroup ? ` · ${escapeAndTruncate(h.groupName, 80)}` : "";
  const text = h.text.trim() ? escapeAndTruncate(h.text.trim(), EXCERPT_MAX) : Md.italic("(no text)");
  const folded = copies > 1 ? `\n_${plural(copies - 1, "more message", "more messages")} said the same_` : "";
  // A message found without its thread can be shared, not opened.
  const view = h.threadId
    ? [viewButton(h.groupId, h.threadId, oneLine(h.threadTitle ?? "") || "Thread")]
    : [];
  return toKnownBlocks(
    Blocks.Section({ text: `${who}${when}${thread}${group}\n${text}${folded}` }),
    Blocks.Actions().elements(...view, shareButton(shareOfMessage(h))),
  );
}

/** "2 threads, 6 messages": what the lists below show, so every number matches a list. */
const countsOf = (threads: number, messages: number) =>
  `${plural(threads, "thread")}, ${plural(messages, "message")}`;

/**
 * Search hits grouped by kind (threads, then messages), best first, each with **View
 * messages** (its thread's messages) and **Share in channel**. Threads with the same title and
 * messages that say the same thing are folded. The counts in the header are those of the lists
 * shown; what did not fit is counted once, at the end. Groups that could not be searched are
 * named with the reason.
 */
export function renderSearchResults(input: SearchResultsInput): RenderedMessage {
  const q = escapeAndTruncate(oneLine(input.query), QUERY_MAX);
  const multi = input.groups.length > 1;
  const where = input.groups.map((g) => escapeAndTruncate(g.name, 60)).join(", ");
  const distinctThreads = foldSameTitles(input.threads);
  const distinctMessages = foldNearDuplicates(input.messages);
  const failures = input.failures.map((f) => `${EMOJI.problem} ${escapeAndTruncate(f.name, 80)}: ${f.reply}`);

  const render = (nThreads: number, nMessages: number) => {
    const threads = distinctThreads.slice(0, nThreads);
    const messages = distinctMessages.slice(0, nMessages);
    const head = toKnownBlocks(
      Blocks.Section({ text: `${Md.bold("Search:")} “${q}”` }),
      Blocks.Context().elements(`In ${where || "no group"} · ${countsOf(threads.length, messages.length)}`),
      failures.length > 0 && Blocks.Context().elements(failures.join("\n")),
    );
    const items: KnownBlock[][] = [];
    if (threads.length > 0) {
      items.push(
        toKnownBlocks(Blocks.Divider(), Blocks.Section({ text: Md.bold(`Threads (${threads.length})`) })),
      );
      for (const t of threads) items.push(threadItem(t.hit, t.copies, multi));
    }
    if (messages.length > 0) {
      items.push(
        toKnownBlocks(Blocks.Divider(), Blocks.Section({ text: Md.bold(`Messages (${messages.length})`) })),
      );
      for (const m of messages) items.push(messageItem(m.hit, m.copies, multi));
    }
    const hidden = distinctThreads.length - threads.length + distinctMessages.length - messages.length;
    const tail =
      hidden > 0
        ? toKnownBlocks(
            Blocks.Context().elements(
              `${plural(hidden, "weaker result")} not shown: refine the words to narrow it down.`,
            ),
          )
        : [];
    return { threads, messages, fitted: fitList({ head, items, tail }) };
  };

  if (distinctThreads.length === 0 && distinctMessages.length === 0) {
    const { fitted } = render(0, 0);
    return {
      text: `No results for “${q}”`,
      blocks: [
        ...fitted.blocks,
        ...toKnownBlocks(Blocks.Section({ text: `No thread or message matches “${q}”. Try other words.` })),
      ],
    };
  }
  let shown = render(SEARCH_SHOWN_PER_KIND, SEARCH_SHOWN_PER_KIND);
  if (shown.fitted.hidden > 0) {
    // Not all fit in one message: say only what is listed. Items run threads first (with one
    // heading item per kind), so the ones kept are the first threads, then the first messages.
    const keptItems = shown.fitted.shown;
    const threadItems = shown.threads.length > 0 ? shown.threads.length + 1 : 0;
    const keptThreads = Math.max(0, Math.min(shown.threads.length, keptItems - 1));
    const keptMessages = Math.max(0, keptItems - threadItems - 1);
    shown = render(keptThreads, keptMessages);
  }
  const counts = countsOf(shown.threads.length, shown.messages.length);
  return { text: `Search results for “${q}”: ${counts}`, blocks: shown.fitted.blocks };
}
