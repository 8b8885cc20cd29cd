import type { SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import type { SlackJobHandler } from "./handler.js";

type NoticeJob = Extract<SlackJob, { kind: "notice" }>;

async function send(
  attempt: SlackAttempt<NoticeJob>,
  deps: Pick<SlackJobDeps, "sender">,
): Promise<SlackOutcome> {
  await deps.sender.post({ channel: attempt.data.channelId, text: attempt.data.text });
  return "sent";
}

/** A plain message to a channel: the operators' notices (OPS_CHANNEL_ID). */
export const noticeHandler: SlackJobHandler<"notice"> = {
  refused: "notice",
  prepare: async (attempt, deps) => ({ send: () => send(attempt, deps) }),
};
