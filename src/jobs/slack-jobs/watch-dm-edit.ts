import {
  prepareWatchDmEdit,
  prepareWatchDmTriage,
  sendWatchDmEdit,
  type PreparedWatchDmEdit,
} from "../../watches/watch-deliveries.js";
import type { SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import { twoSteps } from "./handler.js";
import { comeBackLater } from "./watch-dm-claimed.js";

type WatchEditJob = Extract<SlackJob, { kind: "watch-edit" }>;

/** The edit, rendered from what is stored when the turn comes (a newer edit may have landed meanwhile). */
async function editOf(
  attempt: SlackAttempt<WatchEditJob>,
  deps: SlackJobDeps,
): Promise<PreparedWatchDmEdit | SlackOutcome> {
  const { userId, threadId, digest } = attempt.data;
  const ref = await deps.watchDms.get(userId, threadId);
  if (!ref) return "stale";
  // The DM is being sent right now: this edit comes back once it is there.
  if (ref.kind === "claimed") return comeBackLater(attempt, deps.now ?? Date.now);
  const edit = digest
    ? await prepareWatchDmEdit(
        deps,
        { kind: "edit", userId, stillMatches: attempt.data.stillMatches !== false },
        digest,
      )
    : await prepareWatchDmTriage(deps, userId, threadId);
  return edit ?? "stale";
}

/**
 * A watch DM brought up to date: its thread changed (the DM, or its line in a gathered DM, shows
 * the thread now; an older change never overwrites a newer one), or its triage did (a press or a
 * reaction on any card of the thread). Checked before the turn (nothing to edit takes no turn),
 * and rendered again in it.
 */
export const watchDmEditHandler = twoSteps<"watch-edit", { checked: true }>({
  refused: "dm",
  prepare: async (attempt, deps) => {
    const edit = await editOf(attempt, deps);
    return typeof edit === "string" ? edit : { checked: true };
  },
  send: async (attempt, deps) => {
    const edit = await editOf(attempt, deps);
    return typeof edit === "string" ? edit : sendWatchDmEdit(deps, edit);
  },
});
