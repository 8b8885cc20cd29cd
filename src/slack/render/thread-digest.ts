import { Bits, Blocks, Elements, Md } from "slack-block-builder";
import type { CardFormat } from "../../domain/subscription.js";
import { NOT_RATED, questionStatusLabel, sentimentLabel } from "../../domain/sentiment.js";
import { NO_TRIAGE, type TriageState } from "../../domain/thread-change.js";
import type { ThreadDigest } from "../../domain/thread-digest.js";
import { CARD_BLOCK_PREFIX, DIGEST_ACTIONS } from "../action-ids.js";
import { encodeCardBlockId, encodeThreadRef } from "../button-values.js";
import { escapeAndTruncate, plainText } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitBlocks, LIMITS } from "./limits.js";
import { formatNumber } from "../../domain/without-icu.js";
import { EMOJI, plural, readerDate, slackDate } from "./wording.js";
import { REMIND_CHOICES } from "../../domain/reminder.js";

export interface RenderedMessage {
  /** The notification and accessibility fallback: escaped mrkdwn, one short line. */
  text: string;
  blocks: KnownBlock[];
}

export interface RenderDigestOptions {
  /** Decides whether dates show their year (they do when it is not the current one). */
  now?: Date;
  /** `full` (default) or the compact one-line card (at most three blocks). */
  format?: CardFormat;
  /** Handled, assignee, followers: shown on the card; absent = nobody triaged it yet. */
  triage?: TriageState;
  /** "What changed" parts of a re-enrichment edit (thread-change.ts); untrusted, escaped here. */
  change?: readonly string[];
  /** The thread left this channel's filters; the card still shows its current state (rule 10). */
  noLongerMatches?: boolean;
}

const FALLBACK_TEXT_MAX = 200;
/** The keywords line stays well inside the section limit and the message budget. */
const KEYWORDS_LINE_MAX = 1200;
const KEYWORD_MAX = 60;
const LABEL_MAX = 80;
const NAME_MAX = 200;

/** "a · b · c · and 12 more", escaped, at most `max` characters. */
function keywordsLine(keywords: string[], max: number): string {
  const parts: string[] = [];
  let length = 0;
  for (const [i, k] of keywords.entries()) {
    const part = escapeAndTruncate(k.replace(/\s+/g, " "), KEYWORD_MAX);
    const rest = keywords.length - i - 1;
    // Room for this keyword plus, if others follow, the "and N more" tail.
    const reserve = rest > 0 ? ` · and ${rest} more`.length : 0;
    if (length + (parts.length > 0 ? 3 : 0) + part.length + reserve > max) {
      return `${parts.join(" · ")}${parts.length > 0 ? " · " : ""}and ${keywords.length - i} more`;
    }
    parts.push(part);
    length += (parts.length > 1 ? 3 : 0) + part.length;
  }
  return parts.join(" · ");
}

function sentimentField(d: ThreadDigest): string {
  // Not rated yet: said quietly, without an emoji; the edit that brings it fills it in.
  if (d.sentiment === undefined) return `${Md.bold("Sentiment:")} ${NOT_RATED}`;
  const s = sentimentLabel(d.sentiment);
  return `${Md.bold("Sentiment:")} ${s.emoji} ${escapeAndTruncate(s.label, LABEL_MAX)}`;
}

function questionField(d: ThreadDigest): string | undefined {
  if (d.isQuestionLed === false) return `${Md.bold("Starts with a question:")} no`;
  if (d.isQuestionLed === undefined && d.questionResponseStatus === undefined) return undefined;
  const q = questionStatusLabel(d.questionResponseStatus);
  const status = d.questionResponseStatus === undefined ? "status not known yet" : q.label;
  const heading = d.isQuestionLed ? "Question:" : "Question status:";
  return `${Md.bold(heading)} ${q.emoji} ${escapeAndTruncate(status, LABEL_MAX)}`;
}

const countText = (n: number | undefined) => (n === undefined ? "–" : formatNumber(n));

/** The fallback line: what a notification or a screen reader says first. */
function fallbackText(d: ThreadDigest, title: string, group: string): string {
  const what = d.action === "updated" ? "Updated thread" : "New thread";
  const mood = d.sentiment === undefined ? "" : ` (${sentimentLabel(d.sentiment).label})`;
  return escapeAndTruncate(`${what} in ${group}: ${title}${mood}`, FALLBACK_TEXT_MAX);
}

/**
 * The triage lines (what changed, handled, assignee, followers, filters left), in the order a
 * reader needs them. User ids come from Slack itself (the click), never from community text.
 */
function triageLines(o: RenderDigestOptions): string[] {
  const t = o.triage ?? NO_TRIAGE;
  const lines: string[] = [];
  if (o.change && o.change.length > 0) {
    lines.push(`${EMOJI.changed} ${escapeAndTruncate(o.change.join(" · "), 600)}`);
  }
  if (t.handled) lines.push(`${EMOJI.handled} Handled by <@${t.handled.by}> ${slackDate(t.handled.atMs)}`);
  if (t.assignee) lines.push(`${EMOJI.assignee} Assigned to <@${t.assignee.user}>`);
  if (t.followers > 0) lines.push(`${EMOJI.following} ${plural(t.followers, "person", "people")} following`);
  if (o.noLongerMatches) {
    lines.push(`${EMOJI.noLongerMatches} No longer matches this channel's filters; kept up to date here.`);
  }
  return lines;
}

/** Remind me later (`digest.remind`): when, in the presser's own zone for "tomorrow". */
const remindMenu = () =>
  Elements.StaticSelect({ actionId: DIGEST_ACTIONS.remind, placeholder: "Remind me" }).options(
    Object.entries(REMIND_CHOICES).map(([value, text]) => Bits.Option({ text, value })),
  );

/**
 * The card actions (docs/using.md): messages, handled/reopen, assign, follow, remind. Mark handled is
 * the primary (green) button only while the thread matches the channel's filters: a card kept
 * up to date after it left them asks for nothing.
 */
function actionsBlock(
  d: ThreadDigest,
  title: string,
  triage: TriageState,
  o: { noLongerMatches?: boolean } = {},
): KnownBlock[] {
  const blockId = encodeCardBlockId(CARD_BLOCK_PREFIX, { g: d.groupId, t: d.threadId });
  const assign = Elements.UserSelect({ actionId: DIGEST_ACTIONS.assign, placeholder: "Assign" });
  if (triage.assignee) assign.initialUser(triage.assignee.user);
  const handled = triage.handled !== undefined;
  const markHandled = Elements.Button({
    text: handled ? "Reopen" : "Mark handled",
    actionId: DIGEST_ACTIONS.markHandled,
    // The state the reader saw: a double click asks for the same state twice, and acts once.
    value: handled ? "reopen" : "handle",
  });
  if (!handled && !o.noLongerMatches) markHandled.primary();
  return toKnownBlocks(
    Blocks.Actions({
      // A block_id over Slack's limit (ids of 100+ characters) is left off: the buttons then say they are stale.
      ...(blockId.length <= LIMITS.blockId ? { blockId } : {}),
    }).elements(
      Elements.Button({
        text: "Messages",
        actionId: DIGEST_ACTIONS.viewMessages,
        value: encodeThreadRef({ g: d.groupId, t: d.threadId, n: title }),
      }),
      markHandled,
      assign,
      Elements.Button({ text: "Follow", actionId: DIGEST_ACTIONS.follow, value: "toggle" }),
      remindMenu(),
    ),
  );
}

/** Content blocks fitted so that the actions block (last, and never dropped) still fits. */
function withActions(content: KnownBlock[], actions: KnownBlock[]): KnownBlock[] {
  const room = LIMITS.messageBlocksJson - JSON.stringify(actions).length - 2;
  return [
    ...fitBlocks(content, { maxBlocks: LIMITS.blocksPerMessage - actions.length, maxJson: room }),
    ...actions,
  ];
}

/**
 * A thread card: title, summary, sentiment, counts, question status, keywords, triage (what
 * changed, handled, assignee, followers, filters left), group and activity, and the card
 * actions. Every community string is escaped and every limit held. When the sentiment has not
 * arrived yet it says so quietly (the card is edited when it comes); a missing summary is left
 * out rather than announced.
 */
export function renderThreadDigest(d: ThreadDigest, opts: RenderDigestOptions = {}): RenderedMessage {
  if (opts.format === "compact") return renderCompactCard(d, opts);
  const title = d.title.trim() || "Untitled thread";
  const group = d.groupName.trim() || d.groupId;

  const fields = [
    sentimentField(d),
    `${Md.bold("Messages:")} ${countText(d.messageCount)}`,
    `${Md.bold("Participants:")} ${countText(d.participantCount)}`,
    questionField(d),
  ].filter((f): f is string => f !== undefined);

  const activity = [
    d.firstMessageDate && `First message ${readerDate(d.firstMessageDate)}`,
    d.lastMessageDate && `Last activity ${readerDate(d.lastMessageDate)}`,
  ].filter(Boolean);
  const marker =
    d.action === "updated"
      ? `${EMOJI.changed} Updated ${readerDate(d.enrichedAt)}`
      : `Summarised ${readerDate(d.enrichedAt)}`;
  const triage = triageLines(opts);

  const content = toKnownBlocks(
    Blocks.Header({ text: plainText(title, LIMITS.headerText) }),
    d.summary !== undefined && Blocks.Section({ text: escapeAndTruncate(d.summary, LIMITS.sectionText) }),
    Blocks.Section().fields(fields),
    d.keywords.length > 0 &&
      Blocks.Section({ text: `${Md.bold("Keywords:")} ${keywordsLine(d.keywords, KEYWORDS_LINE_MAX)}` }),
    triage.length > 0 && Blocks.Context().elements(triage.join("\n")),
    Blocks.Context().elements(
      `${EMOJI.group} ${Md.bold(escapeAndTruncate(group, NAME_MAX))}`,
      ...(activity.length > 0 ? [activity.join(" · ")] : []),
      marker,
    ),
  );
  const actions = actionsBlock(d, title, opts.triage ?? NO_TRIAGE, opts);
  return { text: fallbackText(d, title, group), blocks: withActions(content, actions) };
}

/** The compact card's one line: sentiment, title, question status, counts, group. */
function compactLine(d: ThreadDigest, title: string, group: string): string {
  const mood = d.sentiment === undefined ? undefined : sentimentLabel(d.sentiment);
  const q =
    d.isQuestionLed && d.questionResponseStatus !== undefined
      ? questionStatusLabel(d.questionResponseStatus)
      : undefined;
  const counts = [
    d.messageCount !== undefined && plural(d.messageCount, "message"),
    d.participantCount !== undefined && plural(d.participantCount, "participant"),
  ].filter((x): x is string => typeof x === "string");
  return [
    `${mood ? `${mood.emoji} ` : ""}${Md.bold(escapeAndTruncate(title, 300))}`,
    mood ? escapeAndTruncate(mood.label, LABEL_MAX) : `sentiment ${NOT_RATED}`,
    q && `${q.emoji} ${escapeAndTruncate(q.label, LABEL_MAX)}`,
    counts.length > 0 && counts.join(", "),
    `${EMOJI.group} ${escapeAndTruncate(group, LABEL_MAX)}`,
  ]
    .filter((x): x is string => typeof x === "string")
    .join(" · ");
}

/**
 * The compact card (`--format compact`): at most three blocks, one line of facts, one
 * context line of triage when there is any, the same card actions; edited in place like the
 * full card.
 */
export function renderCompactCard(d: ThreadDigest, opts: RenderDigestOptions = {}): RenderedMessage {
  const title = d.title.trim() || "Untitled thread";
  const group = d.groupName.trim() || d.groupId;
  const triage = triageLines(opts);
  // Each part is escaped and capped on its own (title 300, labels 80): the line stays short.
  const content = toKnownBlocks(
    Blocks.Section({ text: compactLine(d, title, group) }),
    triage.length > 0 && Blocks.Context().elements(triage.join(" · ")),
  );
  const actions = actionsBlock(d, title, opts.triage ?? NO_TRIAGE, opts);
  return { text: fallbackText(d, title, group), blocks: withActions(content, actions) };
}
