import type { Middleware, SlackEventMiddlewareArgs } from "@slack/bolt";
import { askQuestion } from "./ask-question.js";
import { READING_STATUS } from "./assistant-listeners.js";
import type { AskDeps } from "./deps.js";

/** A Bolt listener for `app_mention`. */
export type MentionListener = Middleware<SlackEventMiddlewareArgs<"app_mention">>;

/**
 * `@Insight Relay <question>` in a channel: a public question, answered in a thread under the
 * mention (or in the thread it was asked in, where a follow-up keeps the earlier question's
 * group and period). The groups are the channel's unless the question names others.
 */
export function mentionListener(deps: AskDeps): MentionListener {
  return async ({ event }) => {
    if (event.bot_id !== undefined || event.subtype !== undefined || !event.user) return;
    const channel = event.channel;
    const threadTs = event.thread_ts ?? event.ts;
    try {
      // A retried delivery answers once; should Redis not say, answering beats silence.
      if (!(await deps.conversations.take(channel, event.ts).catch(() => true))) return;
      // The first sign, best effort: channel threads take a status too (scope chat:write).
      const status = deps.slack
        .call("assistant.threads.setStatus", {
          channel_id: channel,
          thread_ts: threadTs,
          status: READING_STATUS,
        })
        .catch((err: unknown) => deps.logger.debug({ err }, "mention: setStatus failed"));
      const outcome = await askQuestion(deps, {
        text: event.text,
        userId: event.user,
        channelId: channel,
        conversation: { channelId: channel, threadTs },
      });
      await status;
      await deps.slack.postMessage({ channel, thread_ts: threadTs, ...outcome.reply });
    } catch (err) {
      deps.logger.error({ err }, "mention: answering failed");
      await deps.slack
        .postMessage({
          channel,
          thread_ts: threadTs,
          text: "Something went wrong on the app's side while answering. Try again; if it persists, tell your admin.",
        })
        .catch((e: unknown) => deps.logger.warn({ err: e }, "mention: the failure reply failed"));
    }
  };
}
