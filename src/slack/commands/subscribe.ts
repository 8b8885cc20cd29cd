import { describeFilters, hasFilters, isFlagToken, parseFilterArgs } from "../../domain/filters.js";
import { channelIncident, type OpsNotifier } from "../../ops/ops-notifier.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { resolveGroupOrReply, type ResolveGroupDeps } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

export interface SubscribeDeps extends ResolveGroupDeps {
  subscriptions: Pick<SubscriptionStore, "get" | "put">;
  /** A paused subscription resumed here closes its "channel refused" incident. */
  ops: Pick<OpsNotifier, "resolve">;
  now?: () => Date;
}

export const SUBSCRIBE_USAGE =
  "subscribe <group> [--sentiment negative,mixed] [--questions] [--unanswered] [--min-messages N] [--keywords a,b]";

export function subscribeCommand(deps: SubscribeDeps): Subcommand {
  const now = deps.now ?? (() => new Date());
  return {
    name: "subscribe",
    usage: SUBSCRIBE_USAGE,
    summary: "post digests of a chat group's threads in this channel, optionally only those matching filters",
    mutates: true,
    async run(ctx) {
      const flagAt = ctx.args.findIndex(isFlagToken);
      const nameWords = flagAt === -1 ? ctx.args : ctx.args.slice(0, flagAt);
      const flags = flagAt === -1 ? [] : ctx.args.slice(flagAt);
      if (nameWords.length === 0) {
        await ctx.respond({ text: `Usage: \`/insight ${SUBSCRIBE_USAGE}\`` });
        return;
      }
      const parsed = parseFilterArgs(flags);
      if (!parsed.ok) {
        await ctx.respond({ text: parsed.error });
        return;
      }
      const ref = nameWords.join(" ");
      const g = await resolveGroupOrReply(deps, ctx, ref);
      if (!g) return;
      const existing = await deps.subscriptions.get(ctx.channelId, g.id);
      await deps.subscriptions.put({
        channelId: ctx.channelId,
        groupId: g.id,
        groupName: g.name,
        communityId: g.communityId,
        filters: parsed.filters,
        createdBy: ctx.userId,
        createdAt: existing?.createdAt ?? now().toISOString(),
        paused: undefined,
      });
      if (existing?.paused) await deps.ops.resolve(channelIncident(ctx.channelId, existing.paused.code));
      const filters = hasFilters(parsed.filters) ? describeFilters(parsed.filters) : "";
      const verb = existing ? (existing.paused ? "Resumed" : "Updated") : "Subscribed";
      await ctx.respond({
        text:
          `${verb}: this channel gets digests of *${escapeMrkdwn(g.name)}* (\`${g.id}\`)` +
          (filters ? `, filtered: ${escapeMrkdwn(filters)}.` : ".") +
          " Threads appear here when the Insight Service enriches them.",
      });
    },
  };
}
