import { renderCardReplies, REPLY_BATCH_MAX } from "../../slack/render/card-replies.js";
import type { MessageRef } from "../../store/message-refs.js";
import type { PendingReplies } from "../../store/pending-replies.js";
import { jobId, type SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import { twoSteps } from "./handler.js";

type RepliesJob = Extract<SlackJob, { kind: "replies" }>;

interface RepliesSend {
  replyTo: MessageRef;
  batch: Awaited<ReturnType<PendingReplies["peek"]>>;
}

async function prepare(
  attempt: SlackAttempt<RepliesJob>,
  deps: Pick<SlackJobDeps, "refs" | "replies">,
): Promise<RepliesSend | SlackOutcome> {
  const { channelId, threadId } = attempt.data;
  const [replyTo, batch] = await Promise.all([
    deps.refs.get(channelId, threadId),
    deps.replies.peek(channelId, threadId, REPLY_BATCH_MAX),
  ]);
  if (!replyTo || batch.taken === 0) return "stale";
  return { replyTo, batch };
}

/** One reply under the card with the messages waiting; more than one batch: the next goes later. */
async function send(
  attempt: SlackAttempt<RepliesJob>,
  deps: Pick<SlackJobDeps, "sender" | "replies" | "slackQueue">,
  { replyTo, batch }: RepliesSend,
): Promise<SlackOutcome> {
  const { channelId, threadId } = attempt.data;
  if (batch.replies.length > 0) {
    const { text, blocks } = renderCardReplies(batch.replies);
    await deps.sender.post({ channel: channelId, text, blocks, threadTs: replyTo.ts });
  }
  await deps.replies.drop(channelId, threadId, batch.taken);
  if (batch.taken >= REPLY_BATCH_MAX) {
    // A flood: the rest goes as the next reply, in the channel's next turn.
    await deps
      .slackQueue()
      .add(
        "replies",
        { kind: "replies", channelId, threadId },
        { jobId: jobId("replies-more", channelId, threadId, Date.now()) },
      );
  }
  return "sent";
}

/** New messages of a posted thread, as one reply under its card (`--replies on`). */
export const repliesHandler = twoSteps<"replies", RepliesSend>({ refused: "replies", prepare, send });
