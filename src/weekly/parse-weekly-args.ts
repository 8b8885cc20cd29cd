import { CronExpressionParser } from "cron-parser";
import { escapeAndTruncate } from "../slack/mrkdwn.js";
import { describeUnderstood, parseSchedule } from "./parse-schedule.js";

export type WeeklyCommand =
  | { action: "on"; cron: string; timeZone: string }
  | { action: "off" }
  | { action: "now" }
  | { action: "show" };

export type ParseWeeklyResult = { ok: true; command: WeeklyCommand } | { ok: false; error: string };

export const WEEKLY_USAGE = "weekly on [day] [time] [timezone] | weekly off | weekly now";
const EXAMPLE = "`/insight weekly on monday 09:00 Europe/Berlin`";
const EXAMPLES =
  "For example `/insight weekly on monday 09:00 Europe/Berlin`, `/insight weekly on fri 5pm`, or five cron fields such as `/insight weekly on 0 9 * * 1`.";
/**
 * A weekly summary covers 7 days, so it goes out once a week: every gap between firings is a
 * week, give or take a daylight-saving hour. Shorter gaps would report a thread several times.
 */
const DAY_MS = 86_400_000;
const MIN_GAP_MS = 7 * DAY_MS - 2 * 3_600_000;
const MAX_GAP_MS = 7 * DAY_MS + 2 * 3_600_000;
/** A daily round-up exists already: the digest mode. */
const DAILY_HINT =
  "For a daily round-up, use a daily digest: `/insight subscribe &lt;group&gt; --mode digest`.";
/** What the user typed, echoed back: escaped and short. */
const shown = (s: string) => escapeAndTruncate(s, 200);

/**
 * The shortest gap between the next few firings of a valid cron in `timeZone`, in ms (23 h
 * rather than 24 leaves room for a daylight-saving change).
 */
export function shortestGapMs(cron: string, timeZone: string, from: Date = new Date()): number {
  return gapsMs(cron, timeZone, from).min;
}

/** The shortest and longest gaps between the next firings, and how many fall in the next 7 days. */
export function gapsMs(
  cron: string,
  timeZone: string,
  from: Date = new Date(),
): { min: number; max: number; inAWeek: number } {
  const it = CronExpressionParser.parse(cron, { tz: timeZone, currentDate: from });
  const first = it.next().getTime();
  let prev = first;
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  let inAWeek = 1;
  for (let i = 0; i < 12 && it.hasNext(); i++) {
    const t = it.next().getTime();
    min = Math.min(min, t - prev);
    max = Math.max(max, t - prev);
    if (t - first < 7 * DAY_MS) inAWeek++;
    prev = t;
  }
  return { min, max, inAWeek };
}

/**
 * Parses the words after `weekly`. `on` takes a schedule in plain words ("monday 09:00
 * Europe/Berlin", "fri 5pm") or a five-field cron, each with an optional IANA zone (see
 * parseSchedule); what is left out comes from the defaults. Errors say what was understood
 * and give examples.
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

  // Words may arrive split ("0", "9", ...) or whole ("0 9 * * 1" in quotes): the parser rejoins them.
  const parsed = parseSchedule(rest, defaults);
  if (!parsed.ok) {
    return {
      ok: false,
      error: `${shown(parsed.problem)}. I understood: ${shown(describeUnderstood(parsed.understood))}. ${EXAMPLES}`,
    };
  }
  const { cron, timeZone } = parsed;
  const gaps = gapsMs(cron, timeZone, now);
  const u = parsed.understood;
  // "weekdays (Monday to Friday) at 08:00", or the cron as typed.
  const what = u.days && u.time ? shown(`${u.days} at ${u.time}`) : `\`${shown(cron)}\``;
  if (gaps.min < MIN_GAP_MS) {
    const times =
      gaps.inAWeek > 12
        ? "many times a week"
        : gaps.inAWeek > 1
          ? `${gaps.inAWeek} times a week`
          : "more than once a week";
    return {
      ok: false,
      error: `A weekly summary goes out once a week, and each covers the last 7 days: ${what} would post it ${times}, repeating the same threads. Name one day, for example ${EXAMPLE}. ${DAILY_HINT}`,
    };
  }
  if (gaps.max > MAX_GAP_MS) {
    return {
      ok: false,
      error: `A weekly summary goes out once a week: ${what} would skip weeks. Name one day, for example ${EXAMPLE}.`,
    };
  }
  return { ok: true, command: { action: "on", cron, timeZone } };
}
