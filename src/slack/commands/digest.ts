import type { PendingEntry } from "../../domain/digest-batch.js";
import { deliveryOf, type Subscription } from "../../domain/subscription.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { plural } from "../render/wording.js";
import type { Subcommand } from "./types.js";

export interface DigestCommandDeps {
  subscriptions: { forChannel(channelId: string): Promise<Subscription[]> };
  pending: { list(channelId: string): Promise<PendingEntry[]> };
  /** Queues a flush of the channel's pending digest (a worker posts it). */
  flushNow(channelId: string, requestedBy: string): Promise<void>;
}

const USAGE = "digest now";
const EXAMPLE = "`/insight digest now`";

/** `digest now`: posts this channel's pending batched digest at once (digest-mode subscriptions). */
export function digestCommand(deps: DigestCommandDeps): Subcommand {
  return {
    name: "digest",
    usage: USAGE,
    summary: "post this channel's pending batched digest now (subscriptions in digest mode)",
    mutates: false,
    async run(ctx) {
      const words = ctx.args.map((a) => a.toLowerCase());
      if (words.length !== 1 || words[0] !== "now") {
        const understood = ctx.rest.trim()
          ? `"${escapeAndTruncate(ctx.rest.trim(), 60)}"`
          : "nothing after `digest`";
        await ctx.respond({
          text: `I understood ${understood}, but \`digest\` only knows \`now\`: it posts this channel's pending batched digest at once. Example: ${EXAMPLE}`,
        });
        return;
      }
      const subs = (await deps.subscriptions.forChannel(ctx.channelId)).filter(
        (s) => !s.paused && deliveryOf(s).mode === "digest",
      );
      if (subs.length === 0) {
        await ctx.respond({
          text: "No subscription of this channel is in digest mode, so nothing is batched here. To get one message per period instead of a card per thread: `/insight subscribe &lt;group&gt; --mode digest --every 4h`.",
        });
        return;
      }
      const groups = new Set(subs.map((s) => s.groupId));
      const pending = (await deps.pending.list(ctx.channelId)).filter((e) => groups.has(e.digest.groupId));
      const names = subs.map((s) => `*${escapeAndTruncate(s.groupName || s.groupId, 80)}*`).join(", ");
      if (pending.length === 0) {
        await ctx.respond({
          text: `Nothing is pending: no new or changed thread of ${names} since the last digest.`,
        });
        return;
      }
      await deps.flushNow(ctx.channelId, ctx.userId);
      await ctx.respond({
        text: `Posting the pending digest now: ${plural(pending.length, "thread")} of ${names}.`,
      });
    },
  };
}
