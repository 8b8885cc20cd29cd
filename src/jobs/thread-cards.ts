import type { MessageRefStore } from "../store/message-refs.js";
import type { WatchDmRefs } from "../store/watch-dms.js";
import { jobId, type Producer, type SlackJob } from "./job-types.js";

export interface ThreadCardsDeps {
  /** The channels showing a card of the thread (their index). */
  refs: Pick<MessageRefStore, "channelsOf">;
  /** The people with a watch DM of the thread. */
  watchDms: Pick<WatchDmRefs, "forThread">;
  /** A getter, not the queue: see `healingQueue`. */
  slackQueue: () => Producer<SlackJob>;
}

/**
 * A thread's triage changed (Mark handled, Assign, Follow, a ✅ or 👀): every card of it in the
 * workspace is edited to show it (docs/using.md, digest card actions: triage belongs to the thread),
 * each channel's card in that channel's turn and each watch DM in its person's. `pressedIn`:
 * the card pressed, edited even before the index knows it (a card posted a moment ago). `key`
 * names the change, so a repeated request queues nothing twice. Says how many cards it edits.
 */
export async function refreshThreadCards(
  deps: ThreadCardsDeps,
  threadId: string,
  key: string,
  pressedIn?: string,
): Promise<number> {
  const [indexed, dms] = await Promise.all([
    deps.refs.channelsOf(threadId),
    deps.watchDms.forThread(threadId),
  ]);
  const channels = new Set(indexed);
  // A watch DM's id is its person's DM channel: it is edited as a watch DM, below.
  if (pressedIn && !pressedIn.startsWith("D")) channels.add(pressedIn);
  for (const channelId of channels) {
    await deps
      .slackQueue()
      .add(
        "card",
        { kind: "card", channelId, threadId, reason: "triage" },
        { jobId: jobId("card", channelId, threadId, key) },
      );
  }
  let people = 0;
  for (const [userId, ref] of dms) {
    // A gathered DM's lines show no triage; a DM being sent renders the triage of its moment.
    if (ref.kind !== "card") continue;
    people++;
    await deps
      .slackQueue()
      .add(
        "watch-edit",
        { kind: "watch-edit", channelId: userId, userId, threadId },
        { jobId: jobId("watch-triage", userId, threadId, key) },
      );
  }
  return channels.size + people;
}
