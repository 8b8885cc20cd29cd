import { classifySlackError } from "../../slack/errors.js";
import type { SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import type { SlackJobHandler } from "./handler.js";

type DmJob = Extract<SlackJob, { kind: "dm" }>;

/** A DM to one user, with a link to the card when there is one (assignment, follow). */
async function send(
  attempt: SlackAttempt<DmJob>,
  deps: Pick<SlackJobDeps, "sender" | "logger">,
): Promise<SlackOutcome> {
  const data = attempt.data;
  const dm = await deps.sender.openDm(data.userId);
  let text = data.text;
  if (data.card) {
    const link = await deps.sender.permalink(data.card.channel, data.card.ts).catch((err: unknown) => {
      // Rate limited: the DM waits for its link rather than going without it.
      if (classifySlackError(err).kind === "rate_limited") throw err;
      // The card was deleted meanwhile: the DM still says what happened, without the link.
      deps.logger.debug({ err, channel: data.card?.channel }, "no permalink for the card");
      return undefined;
    });
    if (link) text += `\n<${link}|Open the card>`;
  }
  await deps.sender.post({ channel: dm, text });
  return "sent";
}

/** A direct message (an assignment, a followed thread's change); nothing to read before its turn. */
export const dmHandler: SlackJobHandler<"dm"> = {
  refused: "dm",
  prepare: async (attempt, deps) => ({ send: () => send(attempt, deps) }),
};
