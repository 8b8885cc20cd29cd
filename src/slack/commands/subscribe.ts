import { describeFilters, hasFilters, isFlagToken, parseFilterArgs } from "../../insights/filters.js";
import { channelIncident } from "../../jobs/ops-notifier.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { resolveGroupOrReply } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

export const subscribe: Subcommand = {
  name: "subscribe",
  usage:
    "subscribe <group> [--sentiment negative,mixed] [--questions] [--unanswered] [--min-messages N] [--keywords a,b]",
  summary: "post digests of a chat group's threads in this channel, optionally only those matching filters",
  mutates: true,
  async run(ctx) {
    const flagAt = ctx.args.findIndex(isFlagToken);
    const nameWords = flagAt === -1 ? ctx.args : ctx.args.slice(0, flagAt);
    const flags = flagAt === -1 ? [] : ctx.args.slice(flagAt);
    if (nameWords.length === 0) {
      await ctx.respond({ text: `Usage: \`/insight ${subscribe.usage}\`` });
      return;
    }
    const parsed = parseFilterArgs(flags);
    if (!parsed.ok) {
      await ctx.respond({ text: parsed.error });
      return;
    }
    const ref = nameWords.join(" ");
    const g = await resolveGroupOrReply(ctx, ref);
    if (!g) return;
    const existing = await ctx.services.subscriptions.get(ctx.channelId, g.id);
    await ctx.services.subscriptions.put({
      channelId: ctx.channelId,
      groupId: g.id,
      groupName: g.name,
      communityId: g.communityId,
      filters: parsed.filters,
      createdBy: ctx.userId,
      createdAt: existing?.createdAt ?? new Date().toISOString(),
      paused: undefined,
    });
    if (existing?.paused)
      await ctx.services.ops.resolve(channelIncident(ctx.channelId, existing.paused.code));
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
