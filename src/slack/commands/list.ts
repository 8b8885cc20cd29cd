import type { AlertSettings } from "../../domain/alerts.js";
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
  /** The channel's zone, which digest periods align on. */
  timeZoneOf: (channelId: string) => Promise<string>;
  /** The channel's alerts, listed with each group in the words of the `alerts` reply. */
  alerts: { forChannel(channelId: string): Promise<AlertSettings[]> };
}

export function listCommand(deps: ListDeps): Subcommand {
  return {
    name: "list",
    usage: "list",
    summary:
      "the subscriptions of this channel (delivery, filters, alerts, paused or not, a Settings button each) and its schedule",
    mutates: false,
    async run(ctx) {
      const subs = await deps.subscriptions.forChannel(ctx.channelId);
      const schedule = await deps.describeSchedule?.(ctx.channelId);
      const alerts = await deps.alerts.forChannel(ctx.channelId);
      if (subs.length === 0 && alerts.length === 0) {
        await ctx.respond({
          text: "This channel follows no chat group. Start with `/insight groups`, then `/insight subscribe &lt;group&gt;`.",
        });
        return;
      }
      const rendered = renderSubscriptionList(subs, {
        schedule,
        timeZone: await deps.timeZoneOf(ctx.channelId),
        alerts,
        canChange: mayChangeConfig(ctx.userId, deps.adminUserIds),
      });
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
