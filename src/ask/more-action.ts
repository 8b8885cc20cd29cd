import { debugOnFailure } from "../log.js";
import type { ButtonListener } from "../slack/actions/listeners.js";
import { STALE_BUTTON } from "../slack/actions/reply.js";
import { answerPage } from "./ask-question.js";
import type { AskDeps } from "./deps.js";
import { decodeMore } from "./more-state.js";

/**
 * "Show N more" under an answer: the next cards of the same question, as private or as public
 * as the answer was: an ephemeral answer (`/insight ask`) gets an ephemeral reply; an answer in
 * a thread (the assistant's, a mention's) gets the next cards in that thread.
 */
export function askMoreAction(
  deps: Pick<AskDeps, "reader" | "slack" | "reportInsightError" | "logger">,
): ButtonListener {
  const replyFailed = debugOnFailure(deps.logger, "ask: the more reply was not delivered");
  return async ({ ack, action, body, respond }) => {
    await ack();
    const state = decodeMore(action.value);
    if (!state) {
      await respond({ replace_original: false, response_type: "ephemeral", text: STALE_BUTTON }).catch(
        replyFailed,
      );
      return;
    }
    const { reply } = await answerPage(deps, state.question, state.offset);
    const container = body.container as { is_ephemeral?: boolean; thread_ts?: string } | undefined;
    const message = body.message as { ts?: string; thread_ts?: string } | undefined;
    const channel = body.channel?.id;
    if (container?.is_ephemeral === true || !channel || !message?.ts) {
      await respond({ replace_original: false, response_type: "ephemeral", ...reply }).catch(replyFailed);
      return;
    }
    await deps.slack
      .postMessage({ channel, thread_ts: message.thread_ts ?? message.ts, ...reply })
      .catch(replyFailed);
  };
}
