import type { DueCard } from "../../store/counts-due.js";
import { countsEditJobId } from "../route-message-event.js";
import type { SlackJob } from "../job-types.js";
import type { SlackOutcome } from "./attempt.js";
import { withCounts } from "./card.js";
import type { SlackJobDeps } from "./deps.js";
import type { SlackJobHandler } from "./handler.js";

type CountsJob = Extract<SlackJob, { kind: "counts" }>;

/**
 * The cards of a channel whose counts windows end now (store/counts-due.ts): each card whose
 * counts moved gets its counts edit, in the channel's turn like any edit: sent from this job
 * when the turn is now (`countsEdits`, send-now.ts), else a card job of its own with the id its
 * window's job always had (one edit per card and window, whichever process asks). The others
 * cost a look at their ref and their counts and nothing more. This job takes no turn of its own.
 */
async function askForMovedCounts(
  job: CountsJob,
  deps: Pick<SlackJobDeps, "countsDue" | "refs" | "counts" | "slackQueue" | "countsEdits">,
): Promise<SlackOutcome> {
  const { channelId: channel, at } = job;
  const cards = await deps.countsDue.take(channel, at);
  const looked = await Promise.all(
    cards.map(async (c) => ((await countsMoved(deps, channel, c)) ? c : undefined)),
  );
  const moved = looked.filter((c): c is DueCard => c !== undefined);
  const edits = (deps.countsEdits ?? deps.slackQueue)();
  // At once, as a delivery's cards go: those whose turn is near sleep for it together.
  await Promise.all(
    moved.map((card) =>
      edits.add(
        "card",
        { kind: "card", channelId: channel, threadId: card.threadId, reason: "counts" },
        { jobId: countsEditJobId(channel, card.threadId, card.window) },
      ),
    ),
  );
  // After the edits: a crash in between takes the same cards again (an edit whose counts show
  // already finds nothing to change; a queued one's id makes a second add a no-op).
  await deps.countsDue.done(channel, at);
  return moved.length > 0 ? "asked" : "stale";
}

async function countsMoved(
  deps: Pick<SlackJobDeps, "refs" | "counts">,
  channel: string,
  card: DueCard,
): Promise<boolean> {
  const ref = await deps.refs.get(channel, card.threadId);
  if (!ref?.card) return false;
  const counts = await deps.counts(ref.card.digest.groupId, card.threadId);
  return counts !== undefined && withCounts(ref.card, counts) !== undefined;
}

export const countsDueHandler: SlackJobHandler<"counts"> = {
  refused: "card",
  prepare: async (attempt, deps) => ({ done: await askForMovedCounts(attempt.data, deps) }),
};
