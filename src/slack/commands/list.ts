import { describeFilters } from "../../domain/filters.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import type { Subcommand } from "./types.js";

/** One mrkdwn line about a channel's weekly schedule, or undefined when it has none. */
export type ScheduleLine = (channelId: string) => Promise<string | undefined>;

export interface ListDeps {
  subscriptions: Pick<SubscriptionStore, "forChannel">;
  /** Absent when the app runs without weekly summaries. */
  describeSchedule?: ScheduleLine;
}

export function listCommand(deps: ListDeps): Subcommand {
  return {
    name: "list",
    usage: "list",
    summary: "the subscriptions and schedules of this channel",
    mutates: false,
    async run(ctx) {
      const subs = await deps.subscriptions.forChannel(ctx.channelId);
      const schedule = await deps.describeSchedule?.(ctx.channelId);
      if (subs.length === 0) {
        await ctx.respond({
          text: "This channel follows no chat group. Start with `/insight groups`, then `/insight subscribe <group>`.",
        });
        return;
      }
      const lines = subs.map((s) => {
        const f = describeFilters(s.filters);
        const paused = s.paused ? ` — :pause_button: paused (Slack said \`${s.paused.code}\`)` : "";
        return `• *${escapeMrkdwn(s.groupName)}* (\`${s.groupId}\`)${f ? ` — ${escapeMrkdwn(f)}` : ""}${paused}`;
      });
      await ctx.respond({
        text: `This channel follows ${subs.length} chat group${subs.length === 1 ? "" : "s"}:\n${lines.join("\n")}${
          schedule ? `\n${schedule}` : ""
        }`,
      });
    },
  };
}
