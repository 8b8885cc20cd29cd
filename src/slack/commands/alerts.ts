import { ALERT_RULES, type AlertSettings } from "../../domain/alerts.js";
import { escapeAndTruncate, escapeMrkdwn } from "../mrkdwn.js";
import { describeAlerts } from "../render/alert-settings.js";
import { plural } from "../render/wording.js";
import { resolveAmong, resolveGroupOrReply, type ResolveGroupDeps } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

/** What the command reads and writes of the alert settings. */
export interface AlertSettingsAccess {
  put(channelId: string, s: AlertSettings): Promise<void>;
  forChannel(channelId: string): Promise<AlertSettings[]>;
  remove(channelId: string, groupId: string): Promise<boolean>;
}

export interface AlertsCommandDeps extends ResolveGroupDeps {
  alerts: AlertSettingsAccess;
  /** Minutes between evaluations, as told to the user. */
  everyMinutes?: number;
  now?: () => Date;
}

const USAGE = "alerts <group> [--unanswered-after <hours>h] [--negative-spike] [--volume-spike]";
const EXAMPLE = "`/insight alerts support --unanswered-after 4h --negative-spike`";
export const DEFAULT_UNANSWERED_HOURS = 24;

export type ParsedAlerts =
  | { ok: true; off: true; group: string }
  | {
      ok: true;
      off: false;
      group: string;
      unansweredAfterHours: number | undefined;
      negativeSpike: boolean;
      volumeSpike: boolean;
    }
  | { ok: false; problem: string };

/**
 * `alerts <group> [options]` or `alerts off <group>`. The options given are what is in force
 * afterwards; with none, all three alerts are on (unanswered after 24 h).
 */
export function parseAlertsArgs(args: readonly string[]): ParsedAlerts {
  if (args[0]?.toLowerCase() === "off") {
    const group = args.slice(1).join(" ").trim();
    return group ? { ok: true, off: true, group } : { ok: false, problem: "`alerts off` needs the group" };
  }
  const words: string[] = [];
  let unanswered: number | undefined;
  let negative = false;
  let volume = false;
  let options = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? "";
    const [flag, inline] = a.includes("=")
      ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]
      : [a, undefined];
    switch (flag.toLowerCase()) {
      case "--unanswered-after": {
        const raw = inline ?? args[++i] ?? "";
        const m = /^(\d{1,3})\s*h?$/i.exec(raw.trim());
        const hours = m ? Number(m[1]) : Number.NaN;
        if (!(hours >= 1 && hours <= ALERT_RULES.maxUnansweredHours)) {
          return {
            ok: false,
            problem: `\`--unanswered-after\` takes hours from 1h to ${ALERT_RULES.maxUnansweredHours}h, such as \`4h\`; I read "${escapeAndTruncate(raw, 20)}"`,
          };
        }
        unanswered = hours;
        options++;
        break;
      }
      case "--negative-spike":
        negative = true;
        options++;
        break;
      case "--volume-spike":
        volume = true;
        options++;
        break;
      default:
        if (a.startsWith("--")) {
          return { ok: false, problem: `there is no \`${escapeAndTruncate(a, 40)}\` option for alerts` };
        }
        if (options > 0) {
          return {
            ok: false,
            problem: `the group comes before the options; I read "${escapeAndTruncate(a, 40)}" after them`,
          };
        }
        words.push(a);
    }
  }
  const group = words.join(" ").trim();
  if (!group) return { ok: false, problem: "name the chat group to watch" };
  if (options === 0) {
    return {
      ok: true,
      off: false,
      group,
      unansweredAfterHours: DEFAULT_UNANSWERED_HOURS,
      negativeSpike: true,
      volumeSpike: true,
    };
  }
  return {
    ok: true,
    off: false,
    group,
    unansweredAfterHours: unanswered,
    negativeSpike: negative,
    volumeSpike: volume,
  };
}

/** `alerts`: proactive alerts for a chat group in this channel. */
export function alertsCommand(deps: AlertsCommandDeps): Subcommand {
  return {
    name: "alerts",
    usage: `${USAGE}, alerts off <group>`,
    summary: "proactive alerts here: unanswered questions, negative and volume spikes",
    mutates: true,
    async run(ctx) {
      const parsed = parseAlertsArgs(ctx.args);
      if (!parsed.ok) {
        const typed = ctx.rest.trim() ? `\`${escapeAndTruncate(ctx.rest.trim(), 120)}\`` : "nothing";
        await ctx.respond({
          // `<group>` is a control sequence in mrkdwn, even inside backticks: escaped.
          text: `I could not set alerts from ${typed}: ${parsed.problem}.\nUsage: \`/insight ${escapeMrkdwn(USAGE)}\` or \`/insight alerts off ${escapeMrkdwn("<group>")}\`. Example: ${EXAMPLE}`,
        });
        return;
      }
      if (parsed.off) {
        // Named as every subcommand names a group (rule 13), among this channel's alerts and
        // without asking the API.
        const mine = await deps.alerts.forChannel(ctx.channelId);
        if (mine.length === 0) {
          await ctx.respond({ text: "This channel has no alerts to turn off." });
          return;
        }
        const found = resolveAmong(
          mine,
          parsed.group,
          (list) =>
            `This channel has no alerts for "${escapeAndTruncate(parsed.group, 80)}". It has alerts for:\n${list}`,
        );
        if (!found.ok) {
          await ctx.respond({ text: found.reply });
          return;
        }
        const hit = found.item;
        await deps.alerts.remove(ctx.channelId, hit.groupId);
        await ctx.respond({
          text: `Alerts off: no more alerts for *${escapeMrkdwn(hit.groupName)}* in this channel.`,
        });
        return;
      }
      const group = await resolveGroupOrReply(deps, ctx, parsed.group);
      if (!group) return;
      const now = deps.now?.() ?? new Date();
      const settings: AlertSettings = {
        groupId: group.id,
        groupName: group.name,
        unansweredAfterHours: parsed.unansweredAfterHours,
        negativeSpike: parsed.negativeSpike,
        volumeSpike: parsed.volumeSpike,
        setBy: ctx.userId,
        setAt: now.toISOString(),
      };
      await deps.alerts.put(ctx.channelId, settings);
      await ctx.respond({
        text:
          `Alerts on for *${escapeMrkdwn(group.name)}* in this channel. Each is posted once, naming the threads:\n` +
          `${describeAlerts(settings).join("\n")}\n` +
          `Checked every ${plural(deps.everyMinutes ?? 5, "minute")}; spikes wait until the group has ${ALERT_RULES.minHistoryDays} days of history. Turn off: \`/insight alerts off ${escapeMrkdwn(group.id)}\``,
      });
    },
  };
}
