import { Blocks, Md } from "slack-block-builder";
import { PENDING_EMOJI, questionStatusLabel, sentimentLabel } from "../../domain/sentiment.js";
import type { ThreadDigest } from "../../domain/thread-digest.js";
import { escapeAndTruncate, plainText } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "./known-blocks.js";
import { fitBlocks, LIMITS } from "./limits.js";

export interface RenderedMessage {
  /** The notification and accessibility fallback: escaped mrkdwn, one short line. */
  text: string;
  blocks: KnownBlock[];
}

export interface RenderDigestOptions {
  /** Decides whether dates show their year (they do when it is not the current one). */
  now?: Date;
}

const FALLBACK_TEXT_MAX = 200;
/** The keywords line stays well inside the section limit and the message budget. */
const KEYWORDS_LINE_MAX = 1200;
const KEYWORD_MAX = 60;
const LABEL_MAX = 80;
const NAME_MAX = 200;

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/**
 * "Mar 5, 17:40 UTC" (the year added when it is not `now`'s). Absolute UTC rather than
 * "2 days ago": a posted message stays up and would go stale; Slack's `<!date>` token
 * would localise it but is exactly the `<!…>` syntax we keep out of messages.
 */
export function formatDate(iso: string, now: Date): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return escapeAndTruncate(iso, 40);
  const year = t.getUTCFullYear() === now.getUTCFullYear() ? "" : ` ${t.getUTCFullYear()}`;
  return `${MONTHS[t.getUTCMonth()] ?? ""} ${t.getUTCDate()}${year}, ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())} UTC`;
}

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
  if (d.sentiment === undefined) return `${Md.bold("Sentiment:")} ${PENDING_EMOJI} pending`;
  const s = sentimentLabel(d.sentiment);
  return `${Md.bold("Sentiment:")} ${s.emoji} ${escapeAndTruncate(s.label, LABEL_MAX)}`;
}

function questionField(d: ThreadDigest): string | undefined {
  if (d.isQuestionLed === false) return `${Md.bold("Question-led:")} no`;
  if (d.isQuestionLed === undefined && d.questionResponseStatus === undefined) return undefined;
  const q = questionStatusLabel(d.questionResponseStatus);
  const status = d.questionResponseStatus === undefined ? "status not known yet" : q.label;
  const heading = d.isQuestionLed ? "Question-led:" : "Question status:";
  return `${Md.bold(heading)} ${q.emoji} ${escapeAndTruncate(status, LABEL_MAX)}`;
}

const countText = (n: number | undefined) => (n === undefined ? "–" : n.toLocaleString("en-US"));

/** The fallback line: what a notification or a screen reader says first. */
function fallbackText(d: ThreadDigest, title: string, group: string): string {
  const what = d.action === "updated" ? "Updated thread insights" : "New thread insights";
  const mood = d.sentiment === undefined ? "" : ` (${sentimentLabel(d.sentiment).label})`;
  return escapeAndTruncate(`${what} in ${group}: ${title}${mood}`, FALLBACK_TEXT_MAX);
}

/**
 * A thread digest message: title, summary, sentiment, counts, question status, keywords,
 * group and activity. Every community string is escaped and every limit held; when the
 * sentiment has not arrived yet it says "Sentiment: pending" (the message is edited later).
 */
export function renderThreadDigest(d: ThreadDigest, opts: RenderDigestOptions = {}): RenderedMessage {
  const now = opts.now ?? new Date();
  const title = d.title.trim() || "Untitled thread";
  const group = d.groupName.trim() || d.groupId;

  const fields = [
    sentimentField(d),
    `${Md.bold("Messages:")} ${countText(d.messageCount)}`,
    `${Md.bold("Participants:")} ${countText(d.participantCount)}`,
    questionField(d),
  ].filter((f): f is string => f !== undefined);

  const activity = [
    d.firstMessageDate && `First message ${formatDate(d.firstMessageDate, now)}`,
    d.lastMessageDate && `Last activity ${formatDate(d.lastMessageDate, now)}`,
  ].filter(Boolean);
  const marker =
    d.action === "updated"
      ? `:arrows_counterclockwise: Updated with new insights ${formatDate(d.enrichedAt, now)}`
      : `Enriched ${formatDate(d.enrichedAt, now)}`;

  const blocks = toKnownBlocks(
    Blocks.Header({ text: plainText(title, LIMITS.headerText) }),
    Blocks.Section({
      text: d.summary ? escapeAndTruncate(d.summary, LIMITS.sectionText) : Md.italic("No summary yet."),
    }),
    Blocks.Section().fields(fields),
    d.keywords.length > 0 &&
      Blocks.Section({ text: `${Md.bold("Keywords:")} ${keywordsLine(d.keywords, KEYWORDS_LINE_MAX)}` }),
    Blocks.Context().elements(
      `:busts_in_silhouette: ${Md.bold(escapeAndTruncate(group, NAME_MAX))}`,
      ...(activity.length > 0 ? [activity.join(" · ")] : []),
      marker,
    ),
  );
  return { text: fallbackText(d, title, group), blocks: fitBlocks(blocks) };
}
