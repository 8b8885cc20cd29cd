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
/** Summaries go out at most about once a day: a cron that fires more often is a typo, not a wish. */
const MIN_GAP_MS = 23 * 3_600_000;
/** What the user typed, echoed back: escaped and short. */
const shown = (s: string) => escapeAndTruncate(s, 200);

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
  if (shortestGapMs(cron, timeZone, now) < MIN_GAP_MS) {
    return {
      ok: false,
      error: `"${shown(cron)}" would post more than once a day. Weekly summaries go out at most once a day; for example ${EXAMPLE}.`,
    };
  }
  return { ok: true, command: { action: "on", cron, timeZone } };
}
