import cronstrue from "cronstrue";
import { escapeMrkdwn } from "../slack/mrkdwn.js";
import type { ScheduleInfo } from "./schedules.js";
import { EMOJI } from "../slack/render/wording.js";

/** "At 09:00, only on Monday"; the cron itself when it has no plain reading. */
export function describeCron(cron: string): string {
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true, throwExceptionOnParseError: true });
  } catch {
    return `cron \`${escapeMrkdwn(cron)}\``;
  }
}

/** "Mon, Nov 23, 09:00" in a zone. */
export function formatInZone(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(at);
}

/** One mrkdwn line about a schedule, for `list` and the `weekly` replies. */
export function describeSchedule(s: ScheduleInfo): string {
  const zone = escapeMrkdwn(s.timeZone);
  const next = s.next ? ` Next: ${formatInZone(s.next, s.timeZone)} (${zone}).` : "";
  return `${EMOJI.weekly} Weekly summary: ${describeCron(s.cron)} (${zone}).${next}`;
}

/** `list` and the Home tab's line for a channel: its schedule described, or undefined. */
export function scheduleLine(schedules: {
  get(channelId: string): Promise<ScheduleInfo | undefined>;
}): (channelId: string) => Promise<string | undefined> {
  return async (channelId) => {
    const s = await schedules.get(channelId);
    return s ? describeSchedule(s) : undefined;
  };
}
