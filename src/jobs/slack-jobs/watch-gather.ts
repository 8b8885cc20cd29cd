import { prepareGatheredWatchDm, sendGatheredWatchDm } from "../../watches/watch-deliveries.js";
import type { SlackJobHandler } from "./handler.js";

/**
 * A person's gathered watch DM (their daily time, or the end of their quiet hours), a delayed job
 * (`gatherJobId(userId, dueAtMs)`, one per person and time). The matches due are taken in the
 * person's turn, not before it (a job waiting for its turn holds nothing), sent as one DM, and
 * put back should the send fail; none due (another process took them): nothing is sent.
 */
export const watchGatherHandler: SlackJobHandler<"watch-gather"> = {
  refused: "dm",
  prepare: async (attempt, deps) => ({
    send: async () => {
      const p = await prepareGatheredWatchDm(deps, attempt.data.userId);
      return p ? sendGatheredWatchDm(deps, p) : "stale";
    },
  }),
};
