import {
  prepareWatchDm,
  prepareWatchDmEdit,
  sendWatchDm,
  sendWatchDmEdit,
  type PreparedWatchDmEdit,
} from "../../watches/watch-deliveries.js";
import type { SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import { twoSteps } from "./handler.js";
import { comeBackLater } from "./watch-dm-claimed.js";

type WatchDmJob = Extract<SlackJob, { kind: "watch-dm" }>;

/** A first DM to send, or (the person has one of the thread already) the edit of it. */
type WatchDmSend = { first: true } | { edit: PreparedWatchDmEdit };

/**
 * Before the person's turn: a DM of the thread already there makes this change its edit (one DM
 * per thread and person, docs/using.md `watch`); one being sent right now makes this job come back
 * shortly, to edit it then.
 */
async function prepare(
  attempt: SlackAttempt<WatchDmJob>,
  deps: SlackJobDeps,
): Promise<WatchDmSend | SlackOutcome> {
  const { userId, digest } = attempt.data;
  const ref = await deps.watchDms.get(userId, digest.threadId);
  if (!ref) return { first: true };
  if (ref.kind === "claimed") return comeBackLater(attempt, deps.now ?? Date.now);
  const edit = await prepareWatchDmEdit(deps, { kind: "edit", userId, stillMatches: true }, digest);
  return edit ? { edit } : "stale";
}

/** In the turn: the DM is claimed (two changes at once send one), rendered and sent, or the edit made. */
async function send(
  attempt: SlackAttempt<WatchDmJob>,
  deps: SlackJobDeps,
  s: WatchDmSend,
): Promise<SlackOutcome> {
  if ("edit" in s) return sendWatchDmEdit(deps, s.edit);
  const { userId, watchId, digest } = attempt.data;
  const p = await prepareWatchDm(deps, { kind: "dm", userId, watchId }, digest);
  // Another job claimed it meanwhile: this one comes back and edits what that one sent.
  if (!p) return comeBackLater(attempt, deps.now ?? Date.now);
  return sendWatchDm(deps, p);
}

/** A personal watch's first match: the thread's compact card with its buttons, by DM. */
export const watchDmHandler = twoSteps<"watch-dm", WatchDmSend>({ refused: "dm", prepare, send });
