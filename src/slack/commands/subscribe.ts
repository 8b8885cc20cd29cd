import { describeFilters } from "../../domain/filters.js";
import {
  applyChange,
  checkFilters,
  describeSubscription,
  isEmptyChange,
  isFlagToken,
  parseSubscriptionOptions,
  type SubscriptionChange,
} from "../../domain/subscription-options.js";
import type { Subscription } from "../../domain/subscription.js";
import type { Logger } from "../../log.js";
import { channelIncident } from "../../ops/incidents.js";
import type { OpsNotifier } from "../../ops/ops-notifier.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import type { SlackApi } from "../client.js";
import { isSlackCallError } from "../errors.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { resolveGroupOrReply, type ResolveGroupDeps, type ResolvedGroup } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

/** Saving a subscription and saying so in the channel (the command and the Subscribe here button). */
export interface SubscribeChannelDeps {
  subscriptions: Pick<SubscriptionStore, "get" | "put">;
  /** A paused subscription resumed here closes its "channel refused" incident. */
  ops: Pick<OpsNotifier, "resolve">;
  /** Posts the one public line; `call` joins a public channel the app is not in yet. */
  slack: Pick<SlackApi, "postMessage" | "call">;
  /** The channel's zone, which digest periods align on (said in the notice and the reply). */
  timeZoneOf: (channelId: string) => Promise<string>;
  /** Brings the channel's pending digest and period schedules in line with its subscriptions. */
  syncDigest: (channelId: string, groupId: string) => Promise<void>;
  logger: Logger;
  now?: () => Date;
}

export interface SubscribeDeps extends ResolveGroupDeps, SubscribeChannelDeps {}

export const SUBSCRIBE_USAGE = "subscribe <group> [options]";
export const SUBSCRIBE_EXAMPLE =
  "/insight subscribe Lumen DB Support --sentiment negative,mixed --mode digest";
/** Message metadata event type of the one public line about a subscription. */
export const SUBSCRIPTION_NOTICE = "insight_subscription";
/** Why a fresh subscription is paused when the app cannot post in the channel yet. */
export const NOT_IN_CHANNEL = "not_in_channel";

/** How to let the app in, for the ephemeral reply. */
export const INVITE_HINT =
  "The app cannot post in this channel yet. Invite it with `/invite @Insight Relay`, then run the same `/insight subscribe` again to resume.";

export type SubscribeOutcome = {
  refused?: undefined;
  sub: Subscription;
  verb: "Subscribed" | "Resumed" | "Updated" | "Unchanged";
  /** The channel's zone, for the digest times. */
  timeZone: string;
  /** Set when the app could not post the announcement: what the person should do. */
  problem?: string;
};

/**
 * A change refused before anything is saved or announced: what it would make of the channel's
 * subscription cannot be saved (the same checks as the settings form), in the form's words.
 */
export type SubscribeRefusal = {
  refused: string;
  /** What the subscription would have been, in words (plain text). */
  understood: string;
};

const slackCode = (err: unknown): string | undefined => (isSlackCallError(err) ? err.code : undefined);
const CANNOT_POST = new Set(["not_in_channel", "channel_not_found"]);

/**
 * Posts the one public line about a (re)subscription. On `not_in_channel` the app joins a
 * public channel itself and tries again; a private one (or a join Slack refuses) needs an
 * invite, so the caller is told how. Other failures are logged and left to the digest path.
 */
async function announce(
  deps: SubscribeChannelDeps,
  sub: Subscription,
  text: string,
): Promise<"ok" | "invite"> {
  const post = () =>
    deps.slack.postMessage({
      channel: sub.channelId,
      text,
      unfurl_links: false,
      // Marks the line as the app's own notice (not a digest), for tools reading the channel.
      metadata: { event_type: SUBSCRIPTION_NOTICE, event_payload: { group_id: sub.groupId } },
    });
  try {
    await post();
    return "ok";
  } catch (err) {
    const code = slackCode(err);
    if (code === undefined || !CANNOT_POST.has(code)) {
      deps.logger.warn({ err, channel: sub.channelId }, "subscribe: announcement not posted");
      return "ok";
    }
    if (!sub.channelId.startsWith("C")) return "invite";
    try {
      await deps.slack.call("conversations.join", { channel: sub.channelId });
      await post();
      return "ok";
    } catch (joinErr) {
      deps.logger.info({ err: joinErr, channel: sub.channelId }, "subscribe: could not join the channel");
      return "invite";
    }
  }
}

/**
 * Creates, updates or resumes a channel's subscription to a group. Only what `change` names is
 * changed (docs/using.md); a paused one is resumed. A new or resumed subscription is announced in
 * the channel, which also proves the app can post there; when it cannot, the subscription is
 * kept paused with `not_in_channel`, so running `subscribe` again after the invite resumes it.
 */
export async function subscribeChannel(
  deps: SubscribeChannelDeps,
  a: { channelId: string; userId: string; group: ResolvedGroup; change: SubscriptionChange },
): Promise<SubscribeOutcome | SubscribeRefusal> {
  const now = deps.now ?? (() => new Date());
  const existing = await deps.subscriptions.get(a.channelId, a.group.id);
  const next = applyChange(existing, a.change);
  // Rule 13: what the form refuses is refused here too, before anything is saved or posted.
  const problem = checkFilters(next.filters)[0];
  if (problem) return { refused: problem.problem, understood: describeFilters(next.filters) };
  const sub: Subscription = {
    channelId: a.channelId,
    groupId: a.group.id,
    groupName: a.group.name,
    communityId: a.group.communityId,
    filters: next.filters,
    createdBy: existing?.createdBy ?? a.userId,
    createdAt: existing?.createdAt ?? now().toISOString(),
    paused: undefined,
    ...(Object.keys(next.delivery).length > 0 ? { delivery: next.delivery } : {}),
  };
  const verb: SubscribeOutcome["verb"] = !existing
    ? "Subscribed"
    : existing.paused
      ? "Resumed"
      : isEmptyChange(a.change)
        ? "Unchanged"
        : "Updated";
  await deps.subscriptions.put(sub);
  const timeZone = await deps.timeZoneOf(a.channelId);
  if (verb !== "Subscribed" && verb !== "Resumed") {
    // A mode or period change: the group's pending threads and the period schedules follow.
    if (verb === "Updated") await deps.syncDigest(a.channelId, a.group.id);
    return { sub, verb, timeZone };
  }

  const did = verb === "Subscribed" ? "subscribed this channel to" : "resumed this channel's subscription to";
  const line = `<@${a.userId}> ${did} *${escapeMrkdwn(sub.groupName || sub.groupId)}* — ${escapeMrkdwn(describeSubscription(sub, timeZone))}`;
  if ((await announce(deps, sub, line)) === "invite") {
    const paused = { ...sub, paused: { code: NOT_IN_CHANNEL, at: now().toISOString() } };
    await deps.subscriptions.put(paused);
    return { sub: paused, verb, timeZone, problem: INVITE_HINT };
  }
  if (existing?.paused) await deps.ops.resolve(channelIncident(a.channelId, existing.paused.code));
  await deps.syncDigest(a.channelId, a.group.id);
  return { sub, verb, timeZone };
}

/** The ephemeral answer: what happened and what is now in force. */
export function subscribeReply(o: SubscribeOutcome): string {
  const name = `*${escapeMrkdwn(o.sub.groupName || o.sub.groupId)}* (\`${escapeMrkdwn(o.sub.groupId)}\`)`;
  const inForce = `In force: ${escapeMrkdwn(describeSubscription(o.sub, o.timeZone))}.`;
  const head =
    o.verb === "Unchanged"
      ? `This channel already follows ${name}; nothing changed.`
      : `${o.verb}: this channel follows ${name}.`;
  return [`${head} ${inForce}`, o.problem].filter(Boolean).join("\n");
}

/** Bad options: what was read, the sentence about what was not, and an example. */
export function badOptionsReply(group: string, error: string, understood: string): string {
  const got = [group ? `group "${group}"` : "", understood].filter(Boolean).join(" · ");
  return [
    `I could not read that: ${escapeMrkdwn(error)}`,
    got ? `Understood so far: ${escapeMrkdwn(got)}.` : "",
    `Example: \`${SUBSCRIBE_EXAMPLE}\` (options: see \`/insight help\`).`,
  ]
    .filter(Boolean)
    .join("\n");
}

export function subscribeCommand(deps: SubscribeDeps): Subcommand {
  return {
    name: "subscribe",
    usage: `${SUBSCRIBE_USAGE}`,
    summary:
      "this channel follows a chat group. Options: `--sentiment` / `--exclude-sentiment` a,b, `--keywords` / `--exclude-keywords` a,b, `--questions`, `--unanswered`, `--min-messages N`, `--min-participants N`, `--mode realtime|digest|summary`, `--every 1h…24h`, `--format full|compact`, `--replies on|off`, `--all` (clears filters). Again on a followed group: changes only what is named",
    mutates: true,
    async run(ctx) {
      const flagAt = ctx.args.findIndex(isFlagToken);
      const nameWords = flagAt === -1 ? ctx.args : ctx.args.slice(0, flagAt);
      const flags = flagAt === -1 ? [] : ctx.args.slice(flagAt);
      const ref = nameWords.join(" ").trim();
      if (!ref) {
        await ctx.respond({
          text: `Name the chat group first. Usage: \`/insight ${escapeMrkdwn(SUBSCRIBE_USAGE)}\`, for example \`${SUBSCRIBE_EXAMPLE}\`.`,
        });
        return;
      }
      const parsed = parseSubscriptionOptions(flags);
      if (!parsed.ok) {
        await ctx.respond({ text: badOptionsReply(ref, parsed.error, parsed.understood) });
        return;
      }
      const group = await resolveGroupOrReply(deps, ctx, ref);
      if (!group) return;
      const outcome = await subscribeChannel(deps, {
        channelId: ctx.channelId,
        userId: ctx.userId,
        group,
        change: parsed.change,
      });
      await ctx.respond({
        text:
          outcome.refused === undefined
            ? subscribeReply(outcome)
            : badOptionsReply(group.name, outcome.refused, outcome.understood),
      });
    },
  };
}
