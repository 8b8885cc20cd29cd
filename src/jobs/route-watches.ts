import type { ThreadDigest } from "../domain/thread-digest.js";
import type { WatchPendingStore } from "../store/watch-pending.js";
import type { WatchStore } from "../store/watches.js";
import {
  gatherJobId,
  holdWatchMatch,
  watchesMatching,
  type WatchMatchDeps,
} from "../watches/watch-deliveries.js";
import { jobId, type Producer, type SlackJob } from "./job-types.js";

/** What routing a thread change to the people who watch it reads and writes. */
export interface RouteWatchDeps extends WatchMatchDeps {
  watches: Pick<WatchStore, "all" | "covers">;
  /** Matches that wait for a daily DM or the end of quiet hours. */
  watchPending: Pick<WatchPendingStore, "add">;
}

/**
 * Personal watches (docs/using.md, `watch`), after the thread's digest is built: one Slack job per
 * person it concerns, each with the person as its channel so that it takes their DM's turn: a
 * first match's DM, an edit of the DM they have, or (daily, quiet hours) the match kept and the
 * gathering job queued once per person and due time, delayed to it. Job ids name the rendering,
 * so a repeated delivery queues nothing new. Says how many people it concerned.
 */
export async function routeWatches(
  deps: RouteWatchDeps,
  slackQueue: () => Producer<SlackJob>,
  digest: ThreadDigest,
): Promise<number> {
  const outcomes = await watchesMatching(deps, digest);
  const now = deps.now?.() ?? Date.now();
  const rendering = [digest.threadId, Date.parse(digest.enrichedAt) || 0, digest.sentiment ? "s" : "n"];
  for (const d of outcomes) {
    const userId = d.userId;
    switch (d.kind) {
      case "dm":
        await slackQueue().add(
          "watch-dm",
          { kind: "watch-dm", channelId: userId, userId, watchId: d.watchId, digest },
          { jobId: jobId("watch-dm", userId, ...rendering) },
        );
        break;
      case "edit":
        await slackQueue().add(
          "watch-edit",
          {
            kind: "watch-edit",
            channelId: userId,
            userId,
            threadId: digest.threadId,
            digest,
            stillMatches: d.stillMatches,
          },
          { jobId: jobId("watch-edit", userId, ...rendering, d.stillMatches ? "m" : "x") },
        );
        break;
      case "daily":
      case "held": {
        const due = await holdWatchMatch(deps, d, digest);
        await slackQueue().add(
          "watch-gather",
          { kind: "watch-gather", channelId: userId, userId },
          { jobId: gatherJobId(due.userId, due.dueAtMs), delay: Math.max(0, Math.ceil(due.dueAtMs - now)) },
        );
        break;
      }
    }
  }
  return outcomes.length;
}
