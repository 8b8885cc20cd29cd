import { CronExpressionParser } from "cron-parser";
import { isValidCron, isValidTimezone } from "../config.js";
import { escapeAndTruncate } from "../slack/mrkdwn.js";

export type WeeklyCommand =
  | { action: "on"; cron: string; timeZone: string }
  | { action: "off" }
  | { action: "now" }
  | { action: "show" };

export type ParseWeeklyResult = { ok: true; command: WeeklyCommand } | { ok: false; error: string };

export const WEEKLY_USAGE = "weekly on [cron] [timezone] | weekly off | weekly now";
const EXAMPLE = "`/insight weekly on 0 9 * * 1 Europe/Paris` (Mondays at 09:00, Paris time)";
/** Summaries go out at most about once a day: a cron that fires more often is a typo, not a wish. */
const MIN_GAP_MS = 23 * 3_600_000;
/** What the user typed, echoed back: escaped and short. */
const shown = (s: string) => escapeAndTruncate(s, 80);

/**
 * The shortest gap between the next few firings of a valid cron in `timeZone`, in ms (23 h
 * rather than 24 leaves room for a daylight-saving change).
 */
export function shortestGapMs(cron: string, timeZone: string, from: Date = new Date()): number {
  const it = CronExpressionParser.parse(cron, { tz: timeZone, currentDate: from });
  let prev = it.next().getTime();
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 12 && it.hasNext(); i++) {
    const t = it.next().getTime();
    min = Math.min(min, t - prev);
    prev = t;
  }
  return min;
}

/**
 * Parses the words after `weekly`. `on` takes an optional five-field cron and an optional
 * IANA time zone, in that order ("on", "on Europe/Paris", "on 0 9 * * 1", "on 0 9 * * 1
 * Europe/Paris", the cron possibly in quotes); what is left out comes from the defaults.
 * Errors are one plain sentence with an example.
 */
export function parseWeeklyArgs(
  args: string[],
  defaults: { cron: string; timeZone: string },
  now: Date = new Date(),
): ParseWeeklyResult {
  const [first, ...rest] = args;
  const action = first?.toLowerCase();
  if (action === undefined || action === "" || action === "status")
    return { ok: true, command: { action: "show" } };
  if (action === "off" || action === "now") {
    if (rest.length > 0) return { ok: false, error: `\`weekly ${action}\` takes nothing after it.` };
    return { ok: true, command: { action } };
  }
  if (action !== "on") {
    return {
      ok: false,
      error: `Use \`/insight weekly on\`, \`weekly off\` or \`weekly now\`, e.g. ${EXAMPLE}.`,
    };
  }

  // Words may arrive split ("0", "9", ...) or whole ("0 9 * * 1" in quotes): rejoin, then split.
  const words = rest.join(" ").trim().split(/\s+/).filter(Boolean);
  let timeZone = defaults.timeZone;
  const last = words.at(-1);
  if (last !== undefined && /[A-Za-z]/.test(last)) {
    // Cron fields may hold names (MON, JAN) but never a slash or the word UTC/GMT.
    const looksLikeZone =
      last.includes("/") || /^(utc|gmt|z)$/i.test(last) || words.length === 1 || words.length === 6;
    if (looksLikeZone) {
      if (!isValidTimezone(last)) {
        return {
          ok: false,
          error: `"${shown(last)}" is not a time zone I know. Use an IANA name such as Europe/Paris, America/New_York or UTC.`,
        };
      }
      timeZone = last;
      words.pop();
    }
  }
  const cron = words.length === 0 ? defaults.cron : words.join(" ");
  if (!isValidCron(cron)) {
    return {
      ok: false,
      error: `"${shown(cron)}" is not a five-field cron expression (minute hour day-of-month month day-of-week). Example: ${EXAMPLE}.`,
    };
  }
  if (shortestGapMs(cron, timeZone, now) < MIN_GAP_MS) {
    return {
      ok: false,
      error: `"${shown(cron)}" would post more than once a day. Weekly summaries go out at most once a day; for example ${EXAMPLE}.`,
    };
  }
  return { ok: true, command: { action: "on", cron, timeZone } };
}
