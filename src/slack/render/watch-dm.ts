import { Blocks, Elements, Md } from "slack-block-builder";
import type { TriageState } from "../../domain/thread-change.js";
import type { ThreadDigest } from "../../domain/thread-digest.js";
import { formatClockTime } from "../../domain/local-time.js";
import { describeWords, type WatchSpec } from "../../domain/watch.js";
import { ACTIONS } from "../action-ids.js";
import { encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, plainText } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitBlocks, fitList, LIMITS } from "./limits.js";
import { threadStateLine } from "./reminder.js";
import { renderCompactCard, type RenderedMessage } from "./thread-digest.js";
import { EMOJI, plural, slackDate } from "./wording.js";

/*
 * What a watch sends by DM: a compact card of the thread with the card's buttons (edited in
 * place on later changes), or one gathered DM of several threads (daily, or after quiet hours).
 * Pure: a domain object in, text and blocks out, escaped and within Slack's limits.
 */

const WORDS_MAX = 120;
const GROUP_MAX = 80;
const TITLE_MAX = 150;

const groupOf = (d: Pick<ThreadDigest, "groupName" | "groupId">) => d.groupName.trim() || d.groupId;

/** "your watch “refund failed”", or the group when the watch names no words. */
function watchName(w: Pick<WatchSpec, "words" | "group"> | undefined): string {
  if (!w) return "your watch";
  if (w.words.length > 0) return `your watch ${escapeAndTruncate(describeWords(w.words), WORDS_MAX)}`;
  return w.group ? `your watch on ${escapeAndTruncate(w.group.name || w.group.id, GROUP_MAX)}` : "your watch";
}

export interface WatchDmInput {
  digest: ThreadDigest;
  /** The watch it matched first (absent when that watch was removed since). */
  watch?: Pick<WatchSpec, "words" | "group"> | undefined;
  triage?: TriageState;
  /** False once the thread left every watch of the person: the DM says so and stays true (rule 10). */
  stillMatches?: boolean;
}

/**
 * A watch DM: one context line (which watch), then the thread's compact card with the card's
 * buttons (Messages, Mark handled, Assign, Follow, Remind me); the compact card names the group.
 */
export function renderWatchDm(o: WatchDmInput): RenderedMessage {
  const d = o.digest;
  const head =
    o.stillMatches === false
      ? `${EMOJI.watch} No longer matches ${watchName(o.watch)}; kept up to date here.`
      : `${EMOJI.watch} Matches ${watchName(o.watch)}`;
  const card = renderCompactCard(d, { ...(o.triage ? { triage: o.triage } : {}) });
  const blocks = fitBlocks([...toKnownBlocks(Blocks.Context().elements(head)), ...card.blocks], {
    maxBlocks: LIMITS.blocksPerMessage,
    maxJson: LIMITS.messageBlocksJson,
  });
  const title = d.title.trim() || "Untitled thread";
  const text = escapeAndTruncate(`${watchName(o.watch).replace(/^your/, "Your")}: ${title}`, 200);
  return { text, blocks };
}

export interface GatheredWatchDmInput {
  /** `daily`: the day's matches at the person's daily time; `held`: what waited out quiet hours. */
  reason: "daily" | "held";
  sinceMs: number;
  lines: readonly { digest: ThreadDigest; watchId: string }[];
  /** The person's watches by id (a line whose watch was removed since shows without it). */
  watches: ReadonlyMap<string, Pick<WatchSpec, "words" | "group" | "daily">>;
}

function gatheredLine(
  l: GatheredWatchDmInput["lines"][number],
  w: Pick<WatchSpec, "words" | "group"> | undefined,
): KnownBlock[] {
  const d = l.digest;
  const title = d.title.trim() || "Untitled thread";
  const facts = [
    threadStateLine(d),
    `${EMOJI.group} ${escapeAndTruncate(groupOf(d), GROUP_MAX)}`,
    w ? `matches ${watchName(w).replace(/^your watch /, "")}` : "",
  ].filter(Boolean);
  return toKnownBlocks(
    Blocks.Section({
      text: `${Md.bold(escapeAndTruncate(title, TITLE_MAX))}\n${facts.join(" · ")}`,
    }).accessory(
      Elements.Button({
        text: "Messages",
        actionId: ACTIONS.viewMessages,
        value: encodeThreadRef({ g: d.groupId, t: d.threadId, n: title }),
      }),
    ),
  );
}

/**
 * One DM of several matches: a header with the count, since when, and why now (the daily time,
 * or the end of quiet hours), then a line per thread (state, group, which watch) with Messages.
 * Newest first; within 50 blocks ("…and N more").
 */
export function renderGatheredWatchDm(o: GatheredWatchDmInput): RenderedMessage {
  const lines = [...o.lines].sort((a, b) => (b.digest.enrichedAt > a.digest.enrichedAt ? 1 : -1));
  const count = plural(lines.length, "thread");
  const dailyAt = [...o.watches.values()].find((w) => w.daily !== undefined)?.daily;
  const why =
    o.reason === "daily"
      ? `Your daily watch DM${dailyAt !== undefined ? ` (${formatClockTime(dailyAt)} your time)` : ""}`
      : "Held during your quiet hours";
  const head = toKnownBlocks(
    Blocks.Header({ text: plainText(`Your watches: ${count}`, LIMITS.headerText) }),
    Blocks.Context().elements(
      `${EMOJI.watch} ${why} · matched since ${slackDate(o.sinceMs, "{date_short_pretty} at {time}")}`,
    ),
  );
  const items = lines.map((l) => gatheredLine(l, o.watches.get(l.watchId)));
  const { blocks } = fitList({
    head,
    items,
    more: (hidden) => `…and ${plural(hidden, "more thread")}. See them with \`/insight threads\`.`,
  });
  return { text: `Your watches: ${count} matched`, blocks };
}
