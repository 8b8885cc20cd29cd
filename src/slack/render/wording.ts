/**
 * Small words every renderer shares, so that counts, emoji and dates read the same in every
 * message: one meaning per emoji, correct plurals, dates in each reader's own time zone.
 */

import { escapeAndTruncate } from "../mrkdwn.js";

/**
 * "1,204", "-3.142": a number as `Intl.NumberFormat("en-US")` writes it, in plain JavaScript.
 * Any use of Intl's number or date formatting makes a process load ICU data worth ~7 MB of
 * RSS for its whole life, and the realtime path needs nothing more than this.
 */
export function formatNumber(n: number): string {
  // Past 1e21 JavaScript writes exponents; counts never get there, so Intl may then.
  if (!Number.isFinite(n) || Math.abs(n) >= 1e21) return new Intl.NumberFormat("en-US").format(n);
  // Intl rounds the shortest decimal that reads back as `n` (what String gives) half away from
  // zero, to at most 3 decimals. Below 1e-6 String writes an exponent: that rounds to 0.
  const text = String(Math.abs(n));
  const [whole = "0", fraction = ""] = text.includes("e") ? ["0"] : text.split(".");
  let units = BigInt(whole + fraction.slice(0, 3).padEnd(3, "0"));
  if ((fraction[3] ?? "0") >= "5") units += 1n;
  const digits = units.toString().padStart(4, "0");
  const grouped = digits.slice(0, -3).replace(/\B(?=(\d{3})+$)/g, ",");
  const decimals = digits.slice(-3).replace(/0+$/, "");
  const sign = n < 0 || Object.is(n, -0) ? "-" : "";
  return `${sign}${grouped}${decimals ? `.${decimals}` : ""}`;
}

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
  /** A quiet week: nothing to summarise. */
  quiet: ":zzz:",
  /** The chat group a thread belongs to. */
  group: ":busts_in_silhouette:",
  /** A search result someone shared in the channel. */
  searchResult: ":mag:",
  /** A message someone shared in the channel, with who wrote it. */
  sharedMessage: ":speech_balloon:",
} as const;

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
