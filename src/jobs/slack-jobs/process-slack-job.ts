import { UnrecoverableError } from "bullmq";
import type { SlackJob, SlackJobKind } from "../job-types.js";
import { refusedBySlack } from "../refused-by-slack.js";
import { sendInTurn, type WaitReason } from "../../slack/outbound/send-in-turn.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import { cardHandler } from "./card.js";
import { countsDueHandler } from "./counts-due.js";
import type { SlackJobDeps } from "./deps.js";
import { digestHandler } from "./digest.js";
import { dmHandler } from "./dm.js";
import type { SlackJobHandler } from "./handler.js";
import { noticeHandler } from "./notice.js";
import { remindHandler } from "./remind.js";
import { repliesHandler } from "./replies.js";
import { watchDmEditHandler } from "./watch-dm-edit.js";
import { watchDmHandler } from "./watch-dm.js";
import { watchGatherHandler } from "./watch-gather.js";
import type { WaitInPlace } from "./wait-in-place.js";

/** One handler per kind of Slack job. */
const HANDLERS: { readonly [K in SlackJobKind]: SlackJobHandler<K> } = {
  digest: digestHandler,
  card: cardHandler,
  counts: countsDueHandler,
  replies: repliesHandler,
  dm: dmHandler,
  notice: noticeHandler,
  remind: remindHandler,
  "watch-dm": watchDmHandler,
  "watch-edit": watchDmEditHandler,
  "watch-gather": watchGatherHandler,
};

/**
 * One Slack effect, through the one outbound policy: its handler reads what it needs, then it
 * is sent in its channel's turn (slack/outbound/send-in-turn.ts: spaced per channel, Slack's 429
 * delays the job without spending an attempt); a refusal for good goes to the one refusal
 * policy (refused-by-slack.ts), a request Slack would refuse again fails for good. With
 * `inPlace`, a turn at most a second and a half away is slept where it is (wait-in-place.ts).
 */
export async function processSlackJob(
  attempt: SlackAttempt,
  deps: SlackJobDeps,
  o: { inPlace?: WaitInPlace } = {},
): Promise<SlackOutcome> {
  const now = deps.now ?? Date.now;
  const channel = attempt.data.channelId;
  // The table is keyed by kind, so this handler is the one for this attempt's kind.
  const handler = HANDLERS[attempt.data.kind] as SlackJobHandler<SlackJobKind>;
  const prepared = await handler.prepare(
    attempt as SlackAttempt<Extract<SlackJob, { kind: SlackJobKind }>>,
    deps,
  );
  if ("done" in prepared) return prepared.done;
  const { method } = prepared;
  const { inPlace } = o;

  // The slot is reserved once and kept in the job's data, so a job delayed to it keeps its turn.
  const wait = async (untilMs: number, reason: WaitReason): Promise<void> => {
    // Slept here, the turn is this attempt's own: nothing to keep in the job's data.
    if (await inPlace?.wait(untilMs, now)) return;
    const slotAt = reason === "slot" ? untilMs : undefined;
    if (attempt.data.slotAt !== slotAt) await attempt.updateData({ ...attempt.data, slotAt });
    await attempt.deferUntil(untilMs);
  };
  return sendInTurn<SlackOutcome>({
    channel,
    throttle: deps.throttle,
    now,
    wait,
    ...(attempt.data.slotAt !== undefined ? { reservedSlot: attempt.data.slotAt } : {}),
    earlyMs: 25,
    logger: deps.logger,
    context: { jobId: attempt.id },
    call: prepared.send,
    ...(method !== undefined ? { heldUntil: () => deps.sender.heldUntil?.(method) } : {}),
    // An edit's 5xx is tried again after a sleep here rather than through Redis and back.
    ...(inPlace ? { sleepHere: (untilMs: number) => inPlace.wait(untilMs, now) } : {}),
    onPermanent: (refusal) => refusedBySlack(deps, { channel, refusal, what: handler.refused }),
    // invalid_blocks and the like fail the same way every time: no ten retries for them.
    onRequestError: async (c) => {
      throw new UnrecoverableError(`Slack refused the message: ${c.code}`);
    },
  });
}
