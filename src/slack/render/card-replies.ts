import { Blocks, Md } from "slack-block-builder";
import { escapeAndTruncate } from "../mrkdwn.js";
import { toKnownBlocks } from "./known-blocks.js";
import { fitBlocks } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { plural, slackDate } from "./wording.js";

/** One new message of the thread, as the reply shows it (community text: untrusted). */
export interface ReplyMessage {
  author: string;
  text: string;
  /** ISO time; shown in each reader's zone, or left out when it does not parse. */
  at: string;
}

/** At most this many messages in one reply; more go in the next one. */
export const REPLY_BATCH_MAX = 20;
const TEXT_MAX = 1_200;

/**
 * New messages of a thread as one reply under its card (`--replies on`): a burst is one reply,
 * each message with its author and time, everything escaped.
 */
export function renderCardReplies(messages: readonly ReplyMessage[]): RenderedMessage {
  const shown = messages.slice(0, REPLY_BATCH_MAX);
  const blocks = shown.map((m) => {
    const t = Date.parse(m.at);
    const when = Number.isNaN(t) ? "" : ` · ${slackDate(t, "{time}")}`;
    const who = Md.bold(escapeAndTruncate(m.author.trim() || "Someone", 80));
    const text = escapeAndTruncate(m.text.trim() || "(no text)", TEXT_MAX);
    return Blocks.Section({ text: `${who}${when}\n${text}` });
  });
  return {
    text: `${plural(shown.length, "new message")} in this thread`,
    blocks: fitBlocks(toKnownBlocks(...blocks)),
  };
}
