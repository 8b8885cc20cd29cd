import type { Logger } from "../../log.js";
import { classifySlackError } from "../../slack/errors.js";
import type { SlackSender } from "../../slack/outbound/slack-sender.js";
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
  await deps.sender.post({ channel: dm, text: await withCardLink(deps, data.text, data.card) });
  return "sent";
}

/** A DM's text with a link to the card it is about, when there is one and Slack still has it. */
export async function withCardLink(
  deps: { sender: Pick<SlackSender, "permalink">; logger: Logger },
  text: string,
  card: { channel: string; ts: string } | undefined,
): Promise<string> {
  if (!card) return text;
  const link = await deps.sender.permalink(card.channel, card.ts).catch((err: unknown) => {
    // Rate limited: the DM waits for its link rather than going without it.
    if (classifySlackError(err).kind === "rate_limited") throw err;
    // The card was deleted meanwhile: the DM still says what happened, without the link.
    deps.logger.debug({ err, channel: card.channel }, "no permalink for the card");
    return undefined;
  });
  return link ? `${text}\n<${link}|Open the card>` : text;
}

/** A direct message (an assignment, a followed thread's change); nothing to read before its turn. */
export const dmHandler: SlackJobHandler<"dm"> = {
  refused: "dm",
  prepare: async (attempt, deps) => ({ send: () => send(attempt, deps) }),
};
