import { openSettingsModal, type SettingsOpenDeps } from "../actions/settings-open.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { groupChoices, matchGroup } from "./resolve-group.js";
import { renderSubscriptionList } from "../render/subscription-list.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import type { Subcommand } from "./types.js";

export interface SettingsDeps extends SettingsOpenDeps {
  subscriptions: SettingsOpenDeps["subscriptions"] & Pick<SubscriptionStore, "forChannel">;
  /** The channel's zone, which digest periods align on. */
  timeZoneOf: (channelId: string) => Promise<string>;
}

const USAGE = "settings [group]";

/**
 * `/insight settings [group]`: the modal of this channel's subscription to that group (by id
 * or name among what the channel follows, without asking the API), or of its only one; with
 * several and none named, the list with a Settings button each.
 */
export function settingsCommand(deps: SettingsDeps): Subcommand {
  return {
    name: "settings",
    usage: USAGE,
    summary:
      "opens a form to change a subscription of this channel (mode, period, format, replies, every filter)",
    mutates: true,
    async run(ctx) {
      const subs = await deps.subscriptions.forChannel(ctx.channelId);
      if (subs.length === 0) {
        await ctx.respond({
          text: "This channel follows no chat group yet: start with `/insight subscribe &lt;group&gt;` (see `/insight groups`).",
        });
        return;
      }
      const ref = ctx.args.join(" ").trim();
      // Named as every subcommand names a group (rule 13), among what this channel follows;
      // several matches (or none named) are listed with a Settings button each.
      const m = ref
        ? matchGroup(
            subs,
            ref,
            (s) => s.groupId,
            (s) => s.groupName,
          )
        : subs.length === 1 && subs[0]
          ? { kind: "one" as const, item: subs[0] }
          : { kind: "several" as const, items: subs };
      if (m.kind === "none") {
        const list = groupChoices(
          subs,
          (s) => s.groupId,
          (s) => s.groupName,
        );
        await ctx.respond({
          text: `This channel does not follow "${escapeAndTruncate(ref, 80)}". It follows:\n${list}`,
        });
        return;
      }
      if (m.kind === "several") {
        const rendered = renderSubscriptionList(m.items, {
          canChange: true,
          timeZone: await deps.timeZoneOf(ctx.channelId),
        });
        const why = ref
          ? `"${escapeAndTruncate(ref, 80)}" matches several chat groups this channel follows. Press one's Settings button, or name it by its id.`
          : "Which one? Press its Settings button, or name it: `/insight settings &lt;group&gt;`.";
        await ctx.respond({ text: `${why}\n${rendered.text}`, blocks: rendered.blocks });
        return;
      }
      const sub = m.item;
      if (!ctx.triggerId) {
        await ctx.respond({
          text: "Slack sent no way to open a form here; use the Settings button of `/insight list`.",
        });
        return;
      }
      const outcome = await openSettingsModal(deps, {
        triggerId: ctx.triggerId,
        channelId: ctx.channelId,
        groupId: sub.groupId,
        userId: ctx.userId,
      });
      if (outcome === "gone")
        await ctx.respond({ text: "That subscription was just removed. See `/insight list`." });
    },
  };
}
