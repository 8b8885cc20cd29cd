import type { AlertSettings } from "../../domain/alerts.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { escapeAndTruncate, escapeMrkdwn } from "../mrkdwn.js";
import { resolveAmong } from "./resolve-group.js";
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
        await ctx.respond({
          text: `Name the chat group: \`/insight ${escapeMrkdwn(USAGE)}\`, for example \`/insight unsubscribe Lumen DB Support\`.`,
        });
        return;
      }
      // Named as every subcommand names a group (rule 13), among what this channel follows and
      // without asking the API: a group the key can no longer read must still be removable.
      const subs = await deps.subscriptions.forChannel(ctx.channelId);
      if (subs.length === 0) {
        await ctx.respond({ text: "This channel follows no chat group." });
        return;
      }
      const found = resolveAmong(
        subs,
        ref,
        (list) => `This channel does not follow "${escapeAndTruncate(ref, 80)}". It follows:\n${list}`,
      );
      if (!found.ok) {
        await ctx.respond({ text: found.reply });
        return;
      }
      const sub = found.item;
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
