import type { SubscriptionStore } from "../../store/subscriptions.js";
import { mayChangeConfig } from "../authorize.js";
import { renderSubscriptionList } from "../render/subscription-list.js";
import type { Subcommand } from "./types.js";

/** One mrkdwn line about a channel's weekly schedule, or undefined when it has none. */
export type ScheduleLine = (channelId: string) => Promise<string | undefined>;

export interface ListDeps {
  subscriptions: Pick<SubscriptionStore, "forChannel">;
  /** Absent when the app runs without weekly summaries. */
  describeSchedule?: ScheduleLine;
  /** Who sees the Settings buttons; empty: everyone. */
  adminUserIds: readonly string[];
}

export function listCommand(deps: ListDeps): Subcommand {
  return {
    name: "list",
    usage: "list",
    summary:
      "the subscriptions of this channel (delivery, filters, paused or not, a Settings button each) and its schedule",
    mutates: false,
    async run(ctx) {
      const subs = await deps.subscriptions.forChannel(ctx.channelId);
      const schedule = await deps.describeSchedule?.(ctx.channelId);
      if (subs.length === 0) {
        await ctx.respond({
          text: "This channel follows no chat group. Start with `/insight groups`, then `/insight subscribe &lt;group&gt;`.",
        });
        return;
      }
      const rendered = renderSubscriptionList(subs, {
        schedule,
        canChange: mayChangeConfig(ctx.userId, deps.adminUserIds),
      });
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
