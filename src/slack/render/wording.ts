/**
 * Small words every renderer shares, so that counts, emoji and dates read the same in every
 * message: one meaning per emoji, correct plurals, dates in each reader's own time zone.
 */

import { formatNumber } from "../../domain/without-icu.js";
import { escapeAndTruncate } from "../mrkdwn.js";

/** "1 message", "2 messages", "1,204 messages"; `many` for irregular plurals ("replies"). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}

/**
 * The one emoji vocabulary of the app. Each emoji has one meaning; a renderer that needs a
 * new meaning adds a new entry here rather than reusing one.
 */
export const EMOJI = {
  /** Work queued that will show up shortly ("on its way"); never a thread state. */
  onItsWay: ":hourglass_flowing_sand:",
  /** A question-led thread still waiting for an answer. */
  awaitingAnswer: ":clock3:",
  /** A question-led thread that was answered. Only that: a check that passed is `ok`. */
  answered: ":white_check_mark:",
  /** A check that passed, a connection that works, an action that was done. Never a thread state. */
  ok: ":heavy_check_mark:",
  /** Marked handled by someone in Slack. */
  handled: ":ballot_box_with_check:",
  /** The person a thread is assigned to. */
  assignee: ":bust_in_silhouette:",
  /** Someone follows the thread (DMs on re-enrichment). */
  following: ":bell:",
  /** The card no longer matches this channel's filters. */
  noLongerMatches: ":information_source:",
  /** What changed since the card was last edited. */
  changed: ":arrows_counterclockwise:",
  /** A scheduled weekly summary. */
  weekly: ":calendar:",
  /** A proactive alert. */
  alert: ":rotating_light:",
  /** Something failed and needs a person. */
  problem: ":warning:",
  /** A check that failed: down or unreachable right now (`status`). */
  broken: ":x:",
  /** Not allowed: an admins-only action, or a group the API key may not read. */
  notAllowed: ":no_entry:",
  /** The Insight Service is not connected to this workspace yet. */
  notConnected: ":electric_plug:",
  /** Digests to a channel are paused (Slack refused them). */
  paused: ":pause_button:",
  /** Digests to a channel go out again. */
  resumed: ":arrow_forward:",
  /** Nothing to summarise: a quiet week, or no chat group followed. */
  quiet: ":zzz:",
  /** The chat group a thread belongs to. */
  group: ":busts_in_silhouette:",
  /** A search result someone shared in the channel. */
  searchResult: ":mag:",
  /** A message someone shared in the channel, with who wrote it. */
  sharedMessage: ":speech_balloon:",
  /** A person's own watch: its DM, its confirmation, its list. */
  watch: ":telescope:",
  /** A reminder someone set on a card (`digest.remind`). */
  reminder: ":alarm_clock:",
} as const;

/** "45 s", "12 min", "3 h", "2 d": how long ago, coarse on purpose. */
export function durationText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `${min} min`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h`;
  return `${Math.round(h / 24)} d`;
}

/**
 * A date each reader sees in their own time zone (Slack's `<!date^…>`), with a plain UTC
 * fallback for clients that cannot render it (notifications, old clients): "2026-03-05 17:40 UTC",
 * or "2026-03-05" when `format` shows no time. `format` uses Slack's tokens, e.g.
 * "{date_short_pretty} {time}". The only place the token is built.
 */
export function slackDate(at: Date | number, format = "{date_short_pretty} at {time}"): string {
  const ms = typeof at === "number" ? at : at.getTime();
  const seconds = Math.floor(ms / 1000);
  const iso = new Date(seconds * 1000).toISOString();
  const fallback = format.includes("{time}") ? `${iso.slice(0, 16).replace("T", " ")} UTC` : iso.slice(0, 10);
  return `<!date^${seconds}^${format}|${fallback}>`;
}

/**
 * An ISO date from the Insight Service or our own records, in the reader's zone; a value
 * that does not parse is shown as (escaped) text rather than dropped.
 */
export function readerDate(iso: string, format?: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? escapeAndTruncate(iso, 40) : slackDate(ms, format);
}
