import { Blocks, Elements, Md } from "slack-block-builder";
import { describeSubscription } from "../../domain/subscription-options.js";
import type { StatusReport } from "../../status/status-report.js";
import type { Subscription } from "../../domain/subscription.js";
import type { ViewPayload } from "./view-payload.js";
import { ACTIONS } from "../action-ids.js";
import { encodeResumeState } from "../button-values.js";
import { escapeAndTruncate, escapeMrkdwn, truncateMrkdwn } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitBlocks, fitList } from "./limits.js";
import { linesToSections } from "./sections.js";
import { channelRef, healthGlance, pausedReason } from "./status.js";
import { settingsButton } from "./subscription-list.js";

import { describeWatch, type Watch } from "../../domain/watch.js";
import type { Reminder } from "../../domain/reminder.js";
import { encodeItemRef, PERSONAL_ACTIONS } from "../personal-ids.js";
import { reminderRow } from "./reminder.js";
import { EMOJI, plural, readerDate, slackDate } from "./wording.js";

/** One thread card as Home lists it (title and group are community text: untrusted). */
export interface HomeCard {
  channelId: string;
  title: string;
  groupName: string;
  /** When it was assigned, handled or posted (the list's order). */
  atMs: number;
  handledBy?: string;
}

/** The viewer's threads: assigned to them and open, lately handled, lately posted and open. */
export interface HomeThreads {
  assigned: HomeCard[];
  handled: HomeCard[];
  open: HomeCard[];
  /** Open threads beyond those in `open` (the tab lists a few; a modal lists them all). */
  openMore?: number;
  /** True when there may be more than `openMore` (only so many were counted). */
  openMoreCapped?: boolean;
}

/** Home tabs allow 100 blocks; the JSON budget is ours. */
export const HOME_BUDGET = { maxBlocks: 100, maxJson: 40_000 } as const;
const PAUSED_WITH_BUTTONS = 10;

export interface HomeInput {
  subscriptions: Subscription[];
  /** One line per channel that has a weekly schedule. */
  schedules: Map<string, string>;
  /** The zone of each channel with a digest-mode subscription, which its digest times are in. */
  timeZones?: Map<string, string>;
  status: StatusReport | undefined;
  /** Usage and summary of every subcommand, in `help` order. */
  help: { usage: string; summary: string }[];
  /** Whether the viewer may change configuration (no admin list, or on it). */
  canChange: boolean;
  /** Whether the viewer sees operator detail (the app's admins), as in `/insight status`. */
  detail?: boolean;
  adminsOnly: boolean;
  /** A one-off line at the top (the outcome of a button). Escaped by the caller. */
  notice?: string;
  /** Triage of thread cards; absent when it could not be read. */
  threads?: HomeThreads;
  /** The viewer's own watches and pending reminders; absent when they could not be read. */
  personal?: { watches: readonly Watch[]; reminders: readonly Reminder[]; limit: number };
}

/** Reminders listed on Home; the rest are in `watch list`. */
const HOME_REMINDERS = 5;

/** "My watches": each with Edit and Remove, then pending reminders with Cancel. Private to the viewer. */
function personalBlocks(p: NonNullable<HomeInput["personal"]>): KnownBlock[] {
  const watches = p.watches.flatMap((w, i) =>
    toKnownBlocks(
      Blocks.Section({ text: `*${i + 1}.* ${escapeAndTruncate(describeWatch(w), 400)}` }),
      Blocks.Actions().elements(
        Elements.Button({
          text: "Edit",
          actionId: PERSONAL_ACTIONS.watchEdit,
          value: encodeItemRef({ i: w.id }),
        }),
        Elements.Button({
          text: "Remove",
          actionId: PERSONAL_ACTIONS.watchRemove,
          value: encodeItemRef({ i: w.id }),
        }),
      ),
    ),
  );
  const reminders = p.reminders.slice(0, HOME_REMINDERS).flatMap(reminderRow);
  const more = p.reminders.length - HOME_REMINDERS;
  return toKnownBlocks(
    Blocks.Divider(),
    Blocks.Section({
      text: `${EMOJI.watch} ${Md.bold("My watches")} — ${p.watches.length} of ${p.limit}, seen only by you`,
    }),
    p.watches.length === 0 &&
      Blocks.Section({
        text: "No watch yet. `/insight watch refund failed --sentiment negative` sends you a DM when a thread like that comes in.",
      }),
  ).concat(
    watches,
    p.reminders.length > 0
      ? [
          ...toKnownBlocks(Blocks.Section({ text: Md.bold(`Pending reminders (${p.reminders.length})`) })),
          ...reminders,
        ]
      : [],
    more > 0 ? toKnownBlocks(Blocks.Context().elements(`…and ${more} more in \`/insight watch list\`.`)) : [],
  );
}

function channelItem(
  channelId: string,
  subs: Subscription[],
  schedule: string | undefined,
  canChange: boolean,
  timeZone: string | undefined,
): KnownBlock[] {
  // The schedule line is mrkdwn already (escaped, with its own emoji): cut, never escaped twice.
  const head = Blocks.Section({
    text: schedule ? `${channelRef(channelId)}\n${truncateMrkdwn(schedule, 300)}` : channelRef(channelId),
  });
  const rows = subs.map((s) => {
    // What is in force: filters, then how it arrives (a card per thread, daily digest at 09:00...).
    const f = describeSubscription(s, timeZone);
    const paused = s.paused ? ` ${EMOJI.paused} paused` : "";
    const row = Blocks.Section({
      text: `• ${Md.bold(escapeAndTruncate(s.groupName || s.groupId, 100))} (\`${escapeAndTruncate(s.groupId, 40)}\`) — ${escapeAndTruncate(f, 300)}${paused}`,
    });
    // The same form as `/insight settings`, for those who may change configuration.
    if (canChange) row.accessory(settingsButton(s));
    return row;
  });
  return toKnownBlocks(head, ...rows);
}

function pausedItem(s: Subscription, canChange: boolean, detail: boolean): KnownBlock[] {
  const why = s.paused ? ` — ${pausedReason(s.paused.code, detail)}` : "";
  const section = Blocks.Section({
    text: `${EMOJI.paused} ${Md.bold(escapeAndTruncate(s.groupName || s.groupId, 100))} in ${channelRef(s.channelId)}${why}`,
  });
  if (canChange) {
    section.accessory(
      Elements.Button({
        text: "Resume",
        actionId: ACTIONS.resume,
        value: encodeResumeState({ c: s.channelId, g: s.groupId }),
      }),
    );
  }
  return toKnownBlocks(section);
}

const HOME_THREADS_MAX = 5;

function cardLine(c: HomeCard, when: string): string {
  const title = Md.bold(escapeAndTruncate(c.title.trim() || "Untitled thread", 120));
  const group = escapeAndTruncate(c.groupName.trim() || "a chat group", 60);
  return `• ${title} — ${group} in ${channelRef(c.channelId)} · ${when}`;
}

const postedLine = (c: HomeCard) => cardLine(c, `posted ${slackDate(c.atMs)}`);

/** "Your threads": assigned to the viewer, open, handled; each list short, newest first. */
function threadBlocks(t: HomeThreads): KnownBlock[] {
  const list = (cards: HomeCard[], line: (c: HomeCard) => string, empty: string) =>
    cards.length === 0 ? `_${empty}_` : cards.slice(0, HOME_THREADS_MAX).map(line).join("\n");
  // Open: a few here, the rest counted, with a button that lists them all.
  const more = Math.max(0, t.open.length - HOME_THREADS_MAX) + (t.openMore ?? 0);
  const moreLine =
    more > 0 ? `\n…and ${more}${t.openMoreCapped ? "+" : ""} more open: press *See all* to list them.` : "";
  const open = Blocks.Section({
    text: `${Md.bold("Open")}\n${list(t.open, postedLine, "No open threads.")}${moreLine}`,
  });
  if (more > 0)
    open.accessory(Elements.Button({ text: "See all", actionId: ACTIONS.homeOpenThreads, value: "open" }));
  return toKnownBlocks(
    Blocks.Section({ text: Md.bold("Your threads") }),
    Blocks.Section({
      text: `${EMOJI.assignee} ${Md.bold("Assigned to you")}\n${list(t.assigned, (c) => cardLine(c, `assigned ${slackDate(c.atMs)}`), "Nothing assigned to you.")}`,
    }),
    open,
    Blocks.Section({
      text: `${EMOJI.handled} ${Md.bold("Handled lately")}\n${list(
        t.handled,
        (c) => cardLine(c, `${c.handledBy ? `by <@${c.handledBy}> ` : ""}${slackDate(c.atMs)}`),
        "Nothing marked handled yet.",
      )}`,
    }),
    Blocks.Divider(),
  );
}

/** The modal of **See all**: every open thread the viewer's Home counts, newest first. */
export function renderOpenThreadsModal(
  cards: readonly HomeCard[],
  o: { capped?: boolean } = {},
): ViewPayload {
  const lines = cards.map(postedLine);
  const sections = linesToSections(lines.length > 0 ? lines : ["_No open threads._"]);
  const head = toKnownBlocks(
    Blocks.Context().elements(
      `${plural(cards.length, "open thread")}${o.capped ? " (the newest)" : ""}: posted, not marked handled. Newest first.`,
    ),
  );
  return {
    type: "modal",
    title: { type: "plain_text", text: "Open threads" },
    close: { type: "plain_text", text: "Close" },
    blocks: fitBlocks([...head, ...sections], { maxBlocks: 100, maxJson: HOME_BUDGET.maxJson }),
  };
}

/**
 * Cuts our own mrkdwn (a help summary) at a word boundary outside `code`, so a line never
 * ends inside a code span ("`--min-participants…").
 */
export function cutOutsideCode(text: string, max: number): string {
  if (text.length <= max) return text;
  for (let cut = max - 1; cut > 0; cut--) {
    if (text[cut] !== " ") continue;
    const ticks = (text.slice(0, cut).match(/`/g) ?? []).length;
    if (ticks % 2 === 0) return `${text.slice(0, cut).replace(/[\s,;:·—-]+$/, "")}…`;
  }
  return "…";
}

/**
 * The App Home tab: health at a glance, the workspace's subscriptions and schedules by
 * channel, paused subscriptions (with Resume for those who may change configuration) and a
 * quick help.
 */
export function renderHome(input: HomeInput): ViewPayload {
  const byChannel = new Map<string, Subscription[]>();
  for (const s of input.subscriptions) byChannel.set(s.channelId, [...(byChannel.get(s.channelId) ?? []), s]);
  for (const c of input.schedules.keys()) if (!byChannel.has(c)) byChannel.set(c, []);
  const paused = input.subscriptions.filter((s) => s.paused);
  const detail = input.detail === true;

  // Each heading is followed by its own list: the viewer's threads, then the subscriptions.
  const head = toKnownBlocks(
    Blocks.Header({ text: "Insight Relay" }),
    input.notice !== undefined && Blocks.Section({ text: input.notice }),
    Blocks.Section({
      text: "Your community's chat groups in Slack: thread cards and digests, searches and weekly summaries from the Insight Service.",
    }),
    Blocks.Divider(),
    Blocks.Section({ text: Md.bold("Health at a glance") }),
    Blocks.Section({
      text: input.status
        ? healthGlance(input.status, { detail }).join("\n")
        : `${EMOJI.problem} Health could not be read just now.`,
    }),
    Blocks.Context().elements(
      `${input.status ? `Checked ${readerDate(input.status.at)} · ` : ""}Details: \`/insight status\``,
    ),
    Blocks.Divider(),
  );
  if (input.threads) head.push(...threadBlocks(input.threads));

  const subscriptionsHeading = toKnownBlocks(
    Blocks.Section({
      text: `${Md.bold("Subscriptions")} — ${input.subscriptions.length} in ${byChannel.size} channel${byChannel.size === 1 ? "" : "s"}`,
    }),
  );
  // The viewer's own watches and reminders, between health and the workspace's subscriptions.
  if (input.personal) head.splice(head.length - 2, 0, ...personalBlocks(input.personal));

  const items: KnownBlock[][] = [];
  if (byChannel.size === 0) {
    items.push([
      ...subscriptionsHeading,
      ...toKnownBlocks(
        Blocks.Section({
          text: "No channel follows a chat group yet. In a channel, run `/insight groups`, then `/insight subscribe &lt;group&gt;`.",
        }),
      ),
    ]);
  }
  const channels = [...byChannel.keys()].sort();
  channels.forEach((c, i) => {
    const item = channelItem(
      c,
      byChannel.get(c) ?? [],
      input.schedules.get(c),
      input.canChange,
      input.timeZones?.get(c),
    );
    // The heading travels with the first channel: never a heading without its list.
    items.push(i === 0 ? [...subscriptionsHeading, ...item] : item);
  });
  if (paused.length > 0) {
    const pausedHeading = toKnownBlocks(
      Blocks.Divider(),
      Blocks.Section({
        text: `${Md.bold("Paused subscriptions")} — Slack refused their channel; digests stop until resumed.${
          input.canChange ? "" : " Only the app's admins can resume them."
        }`,
      }),
    );
    paused.slice(0, PAUSED_WITH_BUTTONS).forEach((s, i) => {
      const item = pausedItem(s, input.canChange, detail);
      items.push(i === 0 ? [...pausedHeading, ...item] : item);
    });
  }

  // The same help whatever the moment (before or after Connect); lines cut only between words.
  const help = input.help
    // Home is the help: a line saying "/insight help — this help" would point at nothing here.
    .filter((h) => h.usage.trim() !== "help")
    .map(
      (h) =>
        `• \`/insight ${escapeAndTruncate(h.usage, 200)}\` — ${cutOutsideCode(escapeMrkdwn(h.summary), 600)}`,
    );
  const tail = [
    ...toKnownBlocks(Blocks.Divider(), Blocks.Section({ text: Md.bold("Quick help") })),
    ...(help.length > 0
      ? linesToSections(help)
      : toKnownBlocks(Blocks.Section({ text: "Type `/insight help` in any channel." }))),
    ...toKnownBlocks(
      Blocks.Context().elements(
        `Ranges: \`7d\`, \`30d\`, \`3m\`, \`6m\`, \`all\` (or \`last 30 days\`). Replies are visible only to you.${
          input.adminsOnly ? " Subscriptions and schedules are changed by the app's admins." : ""
        }`,
      ),
    ),
  ];
  const fitted = fitList({
    head,
    items,
    tail,
    more: (hidden) => `…and ${hidden} more (see \`/insight list\` in each channel).`,
    budget: HOME_BUDGET,
  });
  return { type: "home", blocks: fitted.blocks };
}
