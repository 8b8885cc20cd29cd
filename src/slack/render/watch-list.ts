import { Blocks, Elements, Md } from "slack-block-builder";
import { formatClockTime, formatQuietWindow } from "../../domain/local-time.js";
import { describeWatch, type Watch } from "../../domain/watch.js";
import { escapeAndTruncate, escapeMrkdwn } from "../mrkdwn.js";
import { encodeItemRef, PERSONAL_ACTIONS } from "../personal-ids.js";
import type { Reminder } from "../../domain/reminder.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitList } from "./limits.js";
import { reminderRow } from "./reminder.js";
import type { RenderedMessage } from "./thread-digest.js";
import { EMOJI, plural } from "./wording.js";

/*
 * The private replies of `/insight watch`: what a new watch is understood as, the list of a
 * person's watches and pending reminders (with Remove and Cancel), and what `watch off` did.
 * Pure.
 */

const LINE_MAX = 400;

/** A watch in one line, numbered as `watch list` shows it. */
export const watchLine = (w: Watch, n: number): string =>
  `*${n}.* ${escapeAndTruncate(describeWatch(w), LINE_MAX)}`;

/** When and how DMs come, in words, with the person's zone. */
export function deliveryWords(w: Pick<Watch, "daily" | "quiet">, timeZone: string): string {
  const zone = escapeMrkdwn(timeZone);
  if (w.daily !== undefined) {
    return `You get one DM a day at ${formatClockTime(w.daily)} (${zone}) listing the threads that matched since the last one.`;
  }
  const quiet = w.quiet
    ? ` Between ${formatQuietWindow(w.quiet).replace("–", " and ")} (${zone}) they wait, and come gathered in one DM when your quiet hours end.`
    : "";
  return `You get a DM when a thread first matches; later changes edit that DM instead of sending another.${quiet}`;
}

/** The confirmation of a new watch: what was understood, how it arrives, and the count. */
export function watchAddedText(o: { watch: Watch; count: number; limit: number; timeZone: string }): string {
  return [
    `${EMOJI.watch} Watching: ${escapeAndTruncate(describeWatch(o.watch), LINE_MAX)}.`,
    "A thread matches when every word is in its title, summary or keywords and it passes the filters.",
    deliveryWords(o.watch, o.timeZone),
    `This is watch ${o.count} of ${o.limit}: \`/insight watch list\` shows them, \`/insight watch off ${o.count}\` stops this one.`,
  ].join("\n");
}

export const watchLimitText = (count: number, limit: number): string =>
  `${EMOJI.notAllowed} You already have ${plural(count, "watch", "watches")}, the most one person can keep (${limit}). Stop one first: \`/insight watch list\`, then \`/insight watch off &lt;number&gt;\`.`;

export const watchDuplicateText = (w: Watch, position: number): string =>
  `You already watch that: watch ${position}, ${escapeAndTruncate(describeWatch(w), LINE_MAX)}. Nothing changed.`;

/** Bad input: the sentence about what could not be read, what was, and an example. */
export function watchBadInputText(error: string, understood: string, example: string): string {
  return [
    `I could not read that: ${escapeMrkdwn(error)}`,
    understood ? `Understood so far: ${escapeMrkdwn(understood)}.` : "",
    `Example: \`${example}\` (filters as for \`subscribe\`: see \`/insight help\`).`,
  ]
    .filter(Boolean)
    .join("\n");
}

export interface WatchListInput {
  watches: readonly Watch[];
  reminders: readonly Reminder[];
  limit: number;
  /** The person's zone, which quiet hours and daily times are in. */
  timeZone: string;
  /** A line on top: what a button just did. Escaped by the caller. */
  notice?: string;
}

/**
 * `watch list`: the person's watches, numbered (the numbers `watch off` takes), each with
 * Remove; then pending reminders with Cancel. Private (an ephemeral reply).
 */
export function renderWatchList(o: WatchListInput): RenderedMessage {
  const head = toKnownBlocks(
    o.notice !== undefined && Blocks.Section({ text: o.notice }),
    Blocks.Section({
      text:
        o.watches.length === 0
          ? `${EMOJI.watch} You watch nothing yet. Try \`/insight watch refund failed --sentiment negative\`.`
          : `${EMOJI.watch} ${Md.bold("Your watches")} (${o.watches.length} of ${o.limit}) · times in ${escapeMrkdwn(o.timeZone)}`,
    }),
  );
  const items: KnownBlock[][] = o.watches.map((w, i) =>
    toKnownBlocks(
      Blocks.Section({ text: watchLine(w, i + 1) }).accessory(
        Elements.Button({
          text: "Remove",
          actionId: PERSONAL_ACTIONS.watchRemove,
          value: encodeItemRef({ i: w.id }),
        }),
      ),
    ),
  );
  if (o.reminders.length > 0) {
    items.push(
      toKnownBlocks(
        Blocks.Divider(),
        Blocks.Section({ text: Md.bold(`Pending reminders (${o.reminders.length})`) }),
      ),
    );
    for (const r of o.reminders) items.push(reminderRow(r));
  }
  const tail =
    o.watches.length > 0
      ? toKnownBlocks(
          Blocks.Context().elements(
            "Stop one with `/insight watch off &lt;number&gt;`, or all with `/insight watch off all`. Edit them on the app's Home tab.",
          ),
        )
      : [];
  const { blocks } = fitList({ head, items, tail });
  const text =
    o.watches.length === 0
      ? "You watch nothing yet."
      : `Your watches: ${o.watches.length} of ${o.limit}${o.reminders.length > 0 ? `, ${plural(o.reminders.length, "pending reminder")}` : ""}`;
  return { text, blocks };
}

/** What `watch off` did. */
export function watchOffText(
  o:
    | { removed: "all"; count: number }
    | { removed: Watch; position: number }
    | { missing: number; count: number },
): string {
  if ("missing" in o) {
    return o.count === 0
      ? "You watch nothing, so there is nothing to stop."
      : `You have no watch ${o.missing}: you have ${plural(o.count, "watch", "watches")} (see \`/insight watch list\`).`;
  }
  if (o.removed === "all") {
    if (o.count === 0) return "You watch nothing, so there is nothing to stop.";
    return o.count === 1
      ? "Stopped your only watch."
      : `Stopped all ${plural(o.count, "watch", "watches")} of yours.`;
  }
  return `Stopped watch ${o.position}: ${escapeAndTruncate(describeWatch(o.removed), LINE_MAX)}.`;
}
