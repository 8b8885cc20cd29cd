import { renderCardReplies, REPLY_BATCH_MAX } from "../../slack/render/card-replies.js";
import type { MessageRef } from "../../store/message-refs.js";
import type { PendingReplies, PendingReply } from "../../store/pending-replies.js";
import { jobId, type SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import { twoSteps } from "./handler.js";

type RepliesJob = Extract<SlackJob, { kind: "replies" }>;

interface RepliesSend {
  replyTo: MessageRef;
  batch: Awaited<ReturnType<PendingReplies["peek"]>>;
}

/** Looks at the message listing for messages it does not show yet, before they go as they are. */
const KIND_LOOKS = 2;
const LOOK_AGAIN_MS = 5_000;

async function prepare(
  attempt: SlackAttempt<RepliesJob>,
  deps: Pick<SlackJobDeps, "refs" | "replies" | "messageKinds" | "logger" | "now">,
): Promise<RepliesSend | SlackOutcome> {
  const { channelId, threadId } = attempt.data;
  const [replyTo, batch] = await Promise.all([
    deps.refs.get(channelId, threadId),
    deps.replies.peek(channelId, threadId, REPLY_BATCH_MAX),
  ]);
  if (!replyTo || batch.taken === 0) return "stale";
  const people = await withoutBots(attempt, deps, replyTo.groupId, batch.replies);
  if (people.length === 0 && batch.taken < REPLY_BATCH_MAX) {
    // Only bots and system messages: nothing goes under the card, and no turn is taken.
    await deps.replies.drop(channelId, threadId, batch.taken);
    return "stale";
  }
  return { replyTo, batch: { ...batch, replies: people } };
}

/**
 * The waiting messages without those the message listing marks as a bot's or the system's
 * (the webhook does not say; README: bot messages are left out). A message the listing does
 * not show yet is looked for again a few seconds later, twice; after that it goes as it is
 * (rule 3: post rather than block), and so does everything while the listing cannot be read.
 */
async function withoutBots(
  attempt: SlackAttempt<RepliesJob>,
  deps: Pick<SlackJobDeps, "messageKinds" | "logger" | "now">,
  groupId: string,
  replies: PendingReply[],
): Promise<PendingReply[]> {
  if (!deps.messageKinds || replies.length === 0) return replies;
  const { threadId } = attempt.data;
  const kinds = await deps
    .messageKinds(
      groupId,
      threadId,
      replies.map((r) => r.messageId),
    )
    .catch((err: unknown) => {
      deps.logger.warn({ err, threadId }, "message listing unreadable; replies checked again shortly");
      return undefined;
    });
  const looks = attempt.data.looks ?? 0;
  const unknown = kinds ? replies.filter((r) => !kinds.has(r.messageId)).length : replies.length;
  if (unknown > 0 && looks < KIND_LOOKS) {
    await attempt.updateData({ ...attempt.data, looks: looks + 1 });
    await attempt.deferUntil((deps.now ?? Date.now)() + LOOK_AGAIN_MS);
  }
  if (!kinds) return replies;
  return replies.filter((r) => {
    const kind = kinds.get(r.messageId);
    return kind === undefined || kind === "person";
  });
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
