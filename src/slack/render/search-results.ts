import { Blocks, Elements, Md } from "slack-block-builder";
import type { SearchMessageHit, SearchThreadHit } from "../../insight/schemas.js";
import { ACTIONS } from "../action-ids.js";
import { encodeShareState, type ShareState } from "../button-values.js";
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

export type GroupedThreadHit = SearchThreadHit & { groupName: string };
export type GroupedMessageHit = SearchMessageHit & { groupName: string };

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

function threadItem(h: GroupedThreadHit, multiGroup: boolean): KnownBlock[] {
  const title = escapeAndTruncate(oneLine(h.title) || "Untitled thread", 150);
  const excerpt = h.summary?.trim()
    ? escapeAndTruncate(oneLine(h.summary), EXCERPT_MAX)
    : Md.italic("No summary.");
  // Scores are the service's internal ranking: the order says it, the number would not help.
  const meta = multiGroup ? `_${escapeAndTruncate(h.groupName, 80)}_` : "";
  return toKnownBlocks(
    Blocks.Section({ text: `${Md.bold(title)}\n${excerpt}${meta ? `\n${meta}` : ""}` }).accessory(
      shareButton(shareOfThread(h)),
    ),
  );
}

function messageItem(h: GroupedMessageHit, copies: number, multiGroup: boolean): KnownBlock[] {
  const who = Md.bold(escapeAndTruncate(h.author?.trim() || "Unknown author", 80));
  const when = h.date ? ` · ${readerDate(h.date)}` : "";
  const thread = h.threadTitle ? ` · in _${escapeAndTruncate(oneLine(h.threadTitle), 100)}_` : "";
  const group = multiGroup ? ` · ${escapeAndTruncate(h.groupName, 80)}` : "";
  const text = h.text.trim() ? escapeAndTruncate(h.text.trim(), EXCERPT_MAX) : Md.italic("(no text)");
  const folded = copies > 1 ? `\n_${plural(copies - 1, "more message", "more messages")} said the same_` : "";
  return toKnownBlocks(
    Blocks.Section({ text: `${who}${when}${thread}${group}\n${text}${folded}` }).accessory(
      shareButton(shareOfMessage(h)),
    ),
  );
}

/**
 * Search hits grouped by kind (threads, then messages), best first, each with a "Share in
 * channel" button. Groups that could not be searched are named with the reason.
 */
export function renderSearchResults(input: SearchResultsInput): RenderedMessage {
  const q = escapeAndTruncate(oneLine(input.query), QUERY_MAX);
  const multi = input.groups.length > 1;
  const where = input.groups.map((g) => escapeAndTruncate(g.name, 60)).join(", ");
  const threads = input.threads.slice(0, SEARCH_SHOWN_PER_KIND);
  const distinct = foldNearDuplicates(input.messages);
  const messages = distinct.slice(0, SEARCH_SHOWN_PER_KIND);
  const failures = input.failures.map((f) => `${EMOJI.problem} ${escapeAndTruncate(f.name, 80)}: ${f.reply}`);
  // Counted as shown: near-identical messages count once, so every number matches a list.
  const counts = `${plural(input.threads.length, "thread")}, ${plural(distinct.length, "message")}`;

  const head = toKnownBlocks(
    Blocks.Section({ text: `${Md.bold("Search:")} “${q}”` }),
    Blocks.Context().elements(`In ${where || "no group"} · ${counts}`),
    failures.length > 0 && Blocks.Context().elements(failures.join("\n")),
  );
  if (threads.length === 0 && messages.length === 0) {
    return {
      text: `No results for “${q}”`,
      blocks: [
        ...head,
        ...toKnownBlocks(Blocks.Section({ text: `No thread or message matches “${q}”. Try other words.` })),
      ],
    };
  }
  const items: KnownBlock[][] = [];
  if (threads.length > 0) {
    items.push(
      toKnownBlocks(Blocks.Divider(), Blocks.Section({ text: Md.bold(`Threads (${threads.length})`) })),
    );
    for (const h of threads) items.push(threadItem(h, multi));
  }
  if (messages.length > 0) {
    items.push(
      toKnownBlocks(Blocks.Divider(), Blocks.Section({ text: Md.bold(`Messages (${messages.length})`) })),
    );
    for (const m of messages) items.push(messageItem(m.hit, m.copies, multi));
  }
  const hiddenBeyond = input.threads.length - threads.length + distinct.length - messages.length;
  const tail =
    hiddenBeyond > 0
      ? toKnownBlocks(
          Blocks.Context().elements(
            `${plural(hiddenBeyond, "weaker result")} not shown: refine the words to narrow it down.`,
          ),
        )
      : [];
  const fitted = fitList({ head, items, tail });
  return { text: `Search results for “${q}”: ${counts}`, blocks: fitted.blocks };
}
