import { UnrecoverableError } from "bullmq";
import type { Logger } from "../log.js";
import { channelIncident, slackRefusedIncident } from "../ops/incidents.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import { describeSlackError, type SlackErrorClassification } from "../slack/errors.js";
import { EMOJI, plural } from "../slack/render/wording.js";
import type { SubscriptionStore } from "../store/subscriptions.js";

/** Slack errors that mean "this channel will not take our messages": its subscriptions pause. */
const CHANNEL_GONE: ReadonlySet<string> = new Set(["channel_not_found", "not_in_channel", "is_archived"]);

/** What Slack refused: the words of the operators' alert, and whether it is a channel's content. */
const REFUSED = {
  digest: { words: "a digest", content: true },
  "batched digest": { words: "a batched digest", content: true },
  "weekly summary": { words: "the weekly summary", content: true },
  "weekly chart": { words: "the weekly chart (the summary went out without it)", content: true },
  alert: { words: "an alert", content: true },
  card: { words: "a card edit", content: true },
  replies: { words: "replies under a card", content: true },
  dm: { words: "a direct message", content: false },
  notice: { words: "an operators' notice", content: false },
} as const;

export type RefusedWhat = keyof typeof REFUSED;

export interface RefusalDeps {
  subscriptions: Pick<SubscriptionStore, "pauseChannel">;
  ops: Pick<OpsNotifier, "alert">;
  logger: Logger;
  now?: () => number;
}

/**
 * The one answer to Slack refusing a post for good, whoever sent it (a digest, a card edit, the
 * batched digest, the weekly summary, an alert): a channel that is gone (deleted, archived, the
 * app not in it) has its subscriptions paused and the operators are told once per channel and
 * code; any other refusal (the token, a scope) is told once per code and kind. The job then fails
 * for good (BullMQ's UnrecoverableError: no retries that cannot help); retried from the admin
 * page after the fix, it sends for real. DMs and operators' notices pause nothing and alert no one
 * (an ops notice that Slack refuses must not raise another ops notice).
 */
export async function refusedBySlack(
  deps: RefusalDeps,
  o: { channel: string; refusal: SlackErrorClassification; what: RefusedWhat },
): Promise<never> {
  const { channel, what } = o;
  const { code } = o.refusal;
  const { words, content } = REFUSED[what];
  const now = deps.now ?? Date.now;
  if (!content) {
    deps.logger.warn({ channel, code, what }, `Slack refused ${words} for good`);
  } else if (CHANNEL_GONE.has(code)) {
    const paused = await deps.subscriptions.pauseChannel(channel, code, new Date(now()));
    await deps.ops.alert(
      channelIncident(channel, code),
      `${EMOJI.paused} Posts to <#${channel}> are paused (${plural(paused.length, "subscription")}): ` +
        `Slack refused ${words} with \`${code}\`. ${describeSlackError(code)} ` +
        `Then run \`/insight subscribe\` in that channel to resume.`,
    );
  } else {
    await deps.ops.alert(
      slackRefusedIncident(`${what.replace(/ /g, "-")}-${code}`),
      `${EMOJI.problem} Slack refused ${words} for <#${channel}> with \`${code}\`: ${describeSlackError(code)}`,
    );
  }
  throw new UnrecoverableError(`Slack refused ${words}: ${code}`);
}
