import { ALERT_RULES, type AlertSettings } from "../../domain/alerts.js";
import { plural } from "./wording.js";

/*
 * The alerts a channel has for a group, in words: the `alerts` reply and `list` say them alike.
 */

/** The alerts in force, one bullet each, in the words of docs/using.md. */
export function describeAlerts(
  s: Pick<AlertSettings, "unansweredAfterHours" | "negativeSpike" | "volumeSpike">,
): string[] {
  const lines: string[] = [];
  if (s.unansweredAfterHours !== undefined) {
    lines.push(
      `• a thread that starts with a question, still unanswered ${plural(s.unansweredAfterHours, "hour")} after its first message`,
    );
  }
  if (s.negativeSpike) {
    lines.push(
      `• a negative spike: at least ${ALERT_RULES.negativeMinThreads} negative threads in 24 hours and a share ${Math.round(ALERT_RULES.negativePoints * 100)} points over the usual (the group's last ${ALERT_RULES.baseDays} days)`,
    );
  }
  if (s.volumeSpike) {
    lines.push(
      `• a volume spike: at least ${ALERT_RULES.volumeMinThreads} new threads in an hour and ${ALERT_RULES.volumeFactor} times the usual hourly number`,
    );
  }
  return lines;
}
