import type { RedisClient as Redis } from "../store/redis.js";
import { jobId, type Producer } from "../jobs/job-types.js";
import { mayChangeConfig } from "../slack/authorize.js";
import { escapeMrkdwn } from "../slack/mrkdwn.js";
import type { CommandContext, Subcommand } from "../slack/commands/types.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import { describeSchedule } from "./describe-schedule.js";
import { parseWeeklyArgs, WEEKLY_USAGE } from "./parse-weekly-args.js";
import type { WeeklyJob, WeeklySchedules } from "./schedules.js";
import { EMOJI } from "../slack/render/wording.js";

export interface WeeklyCommandDeps {
  schedules: Pick<WeeklySchedules, "get" | "set" | "remove">;
  subscriptions: Pick<SubscriptionStore, "forChannel">;
  /** WEEKLY_DEFAULT_CRON and DEFAULT_TIMEZONE. */
  defaults: { cron: string; timeZone: string };
  /** Who may turn schedules on and off; empty: everyone. */
  adminUserIds: readonly string[];
  queue: () => Producer<WeeklyJob>;
  redis: Redis;
  /** Key that holds a channel's `weekly now` cool-down. */
  cooldownKey(channelId: string): string;
  /** How long after one `weekly now` a channel takes the next; default 10 minutes. */
  nowCooldownMs: number;
  now?: () => number;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/**
 * `/insight weekly on [day] [time] [timezone] | on <cron> [timezone] | off | now` (and bare `weekly`: the current schedule).
 *
 * Registered as not mutating so that `now` and the bare form are open to everyone (`now` only
 * reads, like `threads`, and posts at most once per channel per cool-down); `on` and `off`
 * change configuration, so they check ADMIN_USER_IDS themselves.
 */
export function weeklyCommand(deps: WeeklyCommandDeps): Subcommand {
  const cmd: Subcommand = {
    name: "weekly",
    usage: WEEKLY_USAGE,
    summary:
      "this channel's weekly summary of the chat groups it follows: schedule it, stop it, or post one now",
    mutates: false,
    async run(ctx) {
      const { defaults } = deps;
      // `weekly on` changes only what it names: a time without a zone keeps the zone the
      // schedule had (and a time without a day its day), as `subscribe` keeps options.
      const before =
        ctx.args[0]?.toLowerCase() === "on" ? await deps.schedules.get(ctx.channelId) : undefined;
      const parsed = parseWeeklyArgs(
        ctx.args,
        before ? { cron: before.cron, timeZone: before.timeZone } : defaults,
        new Date((deps.now ?? Date.now)()),
      );
      if (!parsed.ok) {
        await ctx.respond({ text: parsed.error });
        return;
      }
      const c = parsed.command;
      if ((c.action === "on" || c.action === "off") && !mayChangeConfig(ctx.userId, deps.adminUserIds)) {
        await ctx.respond({
          text: `Only the app's admins can use \`/insight weekly ${c.action}\` here. \`/insight weekly now\` is open to everyone.`,
        });
        return;
      }
      switch (c.action) {
        case "show":
          return show(ctx, deps);
        case "on":
          return turnOn(ctx, deps, c.cron, c.timeZone);
        case "off":
          return turnOff(ctx, deps);
        case "now":
          return runNow(ctx, deps, defaults.timeZone);
      }
    },
  };
  return cmd;
}

async function followed(deps: WeeklyCommandDeps, channelId: string): Promise<number> {
  return (await deps.subscriptions.forChannel(channelId)).filter((s) => !s.paused).length;
}

async function show(ctx: CommandContext, deps: WeeklyCommandDeps): Promise<void> {
  const s = await deps.schedules.get(ctx.channelId);
  await ctx.respond({
    text: s
      ? `${describeSchedule(s)}\n\`/insight weekly off\` stops it; \`/insight weekly now\` posts one now.`
      : `No weekly summary is scheduled here. Usage: \`/insight ${WEEKLY_USAGE}\`.`,
  });
}

async function turnOn(
  ctx: CommandContext,
  deps: WeeklyCommandDeps,
  cron: string,
  timeZone: string,
): Promise<void> {
  const before = await deps.schedules.get(ctx.channelId);
  const info = await deps.schedules.set({
    channelId: ctx.channelId,
    cron,
    timeZone,
    setBy: ctx.userId,
    setAt: new Date((deps.now ?? Date.now)()).toISOString(),
  });
  const groups = await followed(deps, ctx.channelId);
  const what =
    groups === 0
      ? "This channel follows no chat group yet: `/insight subscribe &lt;group&gt;` first, or the summary has nothing to cover."
      : `It covers the ${plural(groups, "chat group")} this channel follows.`;
  await ctx.respond({
    text: `${before ? "Changed" : "Scheduled"}. ${describeSchedule(info)}\n${what}`,
  });
}

async function turnOff(ctx: CommandContext, deps: WeeklyCommandDeps): Promise<void> {
  const removed = await deps.schedules.remove(ctx.channelId);
  await ctx.respond({
    text: removed
      ? "Stopped: this channel gets no more weekly summaries. `/insight weekly on` starts them again."
      : "No weekly summary was scheduled here.",
  });
}

async function runNow(ctx: CommandContext, deps: WeeklyCommandDeps, defaultZone: string): Promise<void> {
  const groups = await followed(deps, ctx.channelId);
  if (groups === 0) {
    await ctx.respond({
      text: "This channel follows no chat group, so there is nothing to summarise. Start with `/insight subscribe &lt;group&gt;`.",
    });
    return;
  }
  const key = deps.cooldownKey(ctx.channelId);
  const ok = await deps.redis.set(key, ctx.userId, "PX", deps.nowCooldownMs, "NX");
  if (ok !== "OK") {
    const left = Math.max(1, Math.ceil((await deps.redis.pttl(key)) / 60_000));
    await ctx.respond({
      text: `A weekly summary was asked for here a moment ago. Try again in ${plural(left, "minute")}.`,
    });
    return;
  }
  const schedule = await deps.schedules.get(ctx.channelId);
  const zone = schedule?.timeZone ?? defaultZone;
  const at = (deps.now ?? Date.now)();
  try {
    await deps.queue().add(
      "weekly-now",
      {
        channelId: ctx.channelId,
        trigger: "now",
        timeZone: zone,
        requestedBy: ctx.userId,
      },
      { jobId: jobId("weekly-now", ctx.channelId, at) },
    );
  } catch (err) {
    // It did not start: let them try again. Should the DEL fail too, the cool-down just runs out.
    await deps.redis.del(key).catch(() => undefined);
    throw err;
  }
  await ctx.respond({
    text: `${EMOJI.onItsWay} A summary of the last 7 days up to now, today included (${escapeMrkdwn(zone)}), of the ${plural(groups, "chat group")} this channel follows is on its way to this channel.`,
  });
}
