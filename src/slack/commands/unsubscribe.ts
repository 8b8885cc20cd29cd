import type { AlertSettings } from "../../domain/alerts.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import type { Subcommand } from "./types.js";

export interface UnsubscribeDeps {
  subscriptions: Pick<SubscriptionStore, "forChannel" | "remove">;
  /** Drops the group's pending digest and the channel's period schedules no one asks for now. */
  syncDigest: (channelId: string, groupId: string) => Promise<void>;
  /** The channel's alerts: they are set apart from subscriptions, so the reply says they stay. */
  alerts: { forChannel(channelId: string): Promise<AlertSettings[]> };
}

const USAGE = "unsubscribe <group>";

export function unsubscribeCommand(deps: UnsubscribeDeps): Subcommand {
  return {
    name: "unsubscribe",
    usage: USAGE,
    summary: "this channel stops following a chat group (its cards and digests; alerts stay)",
    mutates: true,
    async run(ctx) {
      const ref = ctx.args.join(" ").trim();
      if (!ref) {
        await ctx.respond({ text: `Usage: \`/insight ${escapeMrkdwn(USAGE)}\`` });
        return;
      }
      // Match what this channel follows, by id or name, without asking the API: a group the
      // key can no longer read must still be removable.
      const subs = await deps.subscriptions.forChannel(ctx.channelId);
      const lower = ref.toLowerCase();
      const matches = subs.filter((s) => s.groupId === ref || s.groupName.toLowerCase() === lower);
      const sub = matches[0];
      if (!sub || matches.length > 1) {
        const list = subs.map((s) => `• ${escapeMrkdwn(s.groupName)} (\`${s.groupId}\`)`).join("\n");
        await ctx.respond({
          text:
            matches.length > 1
              ? `"${escapeMrkdwn(ref)}" matches several subscriptions; use the id:\n${list}`
              : subs.length
                ? `This channel does not follow "${escapeMrkdwn(ref)}". It follows:\n${list}`
                : "This channel follows no chat group.",
        });
        return;
      }
      await deps.subscriptions.remove(ctx.channelId, sub.groupId);
      await deps.syncDigest(ctx.channelId, sub.groupId);
      const alerts = (await deps.alerts.forChannel(ctx.channelId)).some((a) => a.groupId === sub.groupId);
      const alertsStay = alerts
        ? `\nIts alerts stay on here; \`/insight alerts off ${escapeMrkdwn(sub.groupId)}\` stops them.`
        : "";
      await ctx.respond({
        text: `Unsubscribed: this channel no longer follows *${escapeMrkdwn(sub.groupName)}* (\`${sub.groupId}\`).${alertsStay}`,
      });
    },
  };
}
