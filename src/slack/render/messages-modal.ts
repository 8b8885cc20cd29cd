import { Blocks, Elements, Md } from "slack-block-builder";
import type { Message, Pagination } from "../../insight/schemas.js";
import type { ViewPayload } from "./view-payload.js";
import { ACTIONS, MESSAGES_MODAL_CALLBACK } from "../action-ids.js";
import { encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, plainText } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitBlocks, fitList, LIMITS } from "./limits.js";
import { EMOJI, plural, readerDate } from "./wording.js";

/** Messages per modal page. */
export const MESSAGES_PAGE_SIZE = 15;
/** Modals allow 100 blocks; the JSON budget is ours, generous but bounded. */
export const MODAL_BUDGET = { maxBlocks: 100, maxJson: 36_000 } as const;
const MODAL_TITLE = "Thread messages";
const TEXT_MAX = 1_500;
const QUOTE_MAX = 300;
const REACTIONS_SHOWN = 8;

export type MessagePageResult =
  { ok: true; messages: Message[]; pagination: Pagination | undefined } | { ok: false; error: string };

export interface MessagesModalInput {
  groupId: string;
  threadId: string;
  /** The thread's title (from the button until the messages bring it). */
  title: string;
  page: number;
  result: MessagePageResult;
}

/** A reaction as Slack shows it: `:name:` for emoji names, the character itself otherwise. */
function reactionText(emoji: string): string {
  const e = emoji.trim();
  if (/^:?[a-z0-9_+'-]{1,60}:?$/i.test(e)) return `:${e.replace(/^:|:$/g, "").toLowerCase()}:`;
  return escapeAndTruncate(e, 16);
}

function authorOf(m: Message): string {
  const a = m.authorInfo;
  const name = a?.fullName?.trim() || a?.handle?.trim() || "Unknown author";
  return escapeAndTruncate(name, 80);
}

function messageItem(m: Message): KnownBlock[] {
  const when = m.messageDate ? ` · ${readerDate(m.messageDate)}` : "";
  const badge = m.isBotMessage ? " (bot)" : "";
  const lines = [`${Md.bold(authorOf(m))}${badge}${when}`];
  if (m.quotedMessageText?.trim()) {
    const by = m.quotedMessageAuthor?.trim()
      ? ` — ${escapeAndTruncate(m.quotedMessageAuthor.trim(), 60)}`
      : "";
    const quoted = escapeAndTruncate(m.quotedMessageText.replace(/\s+/g, " ").trim(), QUOTE_MAX);
    lines.push(`> ${quoted}${by}`);
  }
  const text = (m.messageText ?? "").trim();
  const body = text ? escapeAndTruncate(text, TEXT_MAX) : Md.italic("(no text)");
  lines.push(m.isSystemMessage ? Md.italic(body) : body);
  const reactions = (m.reactions ?? []).filter((r) => r.count > 0);
  const shown = reactions.slice(0, REACTIONS_SHOWN).map((r) => `${reactionText(r.emoji)} ${r.count}`);
  if (reactions.length > REACTIONS_SHOWN) shown.push(`+${reactions.length - REACTIONS_SHOWN} more`);
  return toKnownBlocks(
    Blocks.Section({ text: lines.join("\n") }),
    shown.length > 0 && Blocks.Context().elements(shown.join("   ")),
  );
}

function modal(blocks: KnownBlock[], metadata: { g: string; t: string }): ViewPayload {
  return {
    type: "modal",
    callback_id: MESSAGES_MODAL_CALLBACK,
    title: { type: "plain_text", text: MODAL_TITLE },
    close: { type: "plain_text", text: "Close" },
    private_metadata: JSON.stringify(metadata),
    blocks,
  };
}

const headerOf = (title: string) =>
  toKnownBlocks(Blocks.Header({ text: plainText(title.trim() || "Untitled thread", LIMITS.headerText) }));

/** Shown at once on click (the trigger expires in 3 s); replaced when the messages arrive. */
export function renderMessagesLoading(input: {
  groupId: string;
  threadId: string;
  title: string;
}): ViewPayload {
  return modal(
    [
      ...headerOf(input.title),
      ...toKnownBlocks(Blocks.Section({ text: `${EMOJI.onItsWay} Loading messages…` })),
    ],
    { g: input.groupId, t: input.threadId },
  );
}

/** One page of a thread's messages: author, time, text, reactions and quoted text; Previous/Next. */
export function renderMessagesModal(input: MessagesModalInput): ViewPayload {
  const { result, page } = input;
  const fromMessages = result.ok
    ? result.messages.find((m) => m.chatThreadSummary?.title?.trim())?.chatThreadSummary?.title
    : undefined;
  const title = fromMessages ?? input.title;
  const meta = { g: input.groupId, t: input.threadId };
  if (!result.ok) {
    return modal(
      fitBlocks(
        [...headerOf(title), ...toKnownBlocks(Blocks.Section({ text: `${EMOJI.problem} ${result.error}` }))],
        MODAL_BUDGET,
      ),
      meta,
    );
  }
  const p = result.pagination;
  const totalPages = p?.totalPages;
  const hasNext = p ? page < p.totalPages : result.messages.length >= MESSAGES_PAGE_SIZE;
  const summary = [
    totalPages ? `Page ${page} of ${totalPages}` : `Page ${page}`,
    p ? plural(p.total, "message") : undefined,
    "oldest first",
  ].filter(Boolean);
  const head = [
    ...headerOf(title),
    ...toKnownBlocks(Blocks.Context().elements(summary.join(" · ")), Blocks.Divider()),
  ];
  const ref = (to: number) => encodeThreadRef({ g: input.groupId, t: input.threadId, n: title, p: to });
  const buttons = [
    page > 1 &&
      Elements.Button({ text: "‹ Previous", actionId: `${ACTIONS.messagesPage}.prev`, value: ref(page - 1) }),
    hasNext &&
      Elements.Button({ text: "Next ›", actionId: `${ACTIONS.messagesPage}.next`, value: ref(page + 1) }),
  ].filter((b) => b !== false);
  const tail = buttons.length > 0 ? toKnownBlocks(Blocks.Actions().elements(...buttons)) : [];
  if (result.messages.length === 0) {
    const empty = page > 1 ? "No more messages." : "The service lists no messages for this thread.";
    return modal([...head, ...toKnownBlocks(Blocks.Section({ text: empty })), ...tail], meta);
  }
  const fitted = fitList({
    head,
    items: result.messages.map((m) => messageItem(m)),
    tail,
    more: (hidden) => `…and ${hidden} more on this page (too long to show).`,
    budget: MODAL_BUDGET,
  });
  return modal(fitted.blocks, meta);
}
