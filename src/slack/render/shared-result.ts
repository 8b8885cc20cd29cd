import { Blocks, Md } from "slack-block-builder";
import type { ShareState } from "../button-values.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { toKnownBlocks } from "./known-blocks.js";
import { fitBlocks } from "./limits.js";
import type { RenderedMessage } from "./thread-digest.js";
import { EMOJI, readerDate } from "./wording.js";

const TEXT_MAX = 1_500;

/** `<@U123>` only for a real user id (it comes from Slack's signed payload). */
export function userMention(userId: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : "someone";
}

/**
 * A search result posted visibly in the channel, with who shared it. Every field of the share
 * value is treated as untrusted (it is community text that travelled through a button): all
 * of it is escaped here.
 */
export function renderSharedResult(s: ShareState, sharedBy: string): RenderedMessage {
  const group = escapeAndTruncate(s.gn.trim() || "a chat group", 100);
  const by = userMention(sharedBy);
  const body = s.tx.trim() ? escapeAndTruncate(s.tx.trim(), TEXT_MAX) : Md.italic("(no text)");
  if (s.k === "thread") {
    const title = escapeAndTruncate(s.ti?.trim() || "Untitled thread", 150);
    return {
      text: escapeAndTruncate(`Thread from ${s.gn}: ${s.ti ?? ""}`, 200),
      blocks: fitBlocks(
        toKnownBlocks(
          Blocks.Section({ text: `${EMOJI.searchResult} ${Md.bold(title)}\n${body}` }),
          Blocks.Context().elements(`Thread in ${Md.bold(group)} · Shared by ${by} from \`/insight search\``),
        ),
      ),
    };
  }
  const who = escapeAndTruncate(s.a?.trim() || "Unknown author", 80);
  const when = s.d ? ` · ${readerDate(s.d)}` : "";
  const thread = s.ti?.trim() ? ` · in _${escapeAndTruncate(s.ti.trim(), 100)}_` : "";
  return {
    text: escapeAndTruncate(`Message from ${s.a ?? "a member"} in ${s.gn}`, 200),
    blocks: fitBlocks(
      toKnownBlocks(
        Blocks.Section({ text: `${EMOJI.sharedMessage} ${Md.bold(who)}${when}\n${body}` }),
        Blocks.Context().elements(
          `Message in ${Md.bold(group)}${thread} · Shared by ${by} from \`/insight search\``,
        ),
      ),
    ),
  };
}
