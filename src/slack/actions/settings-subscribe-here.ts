import type { Logger } from "../../log.js";
import { ADMIN_ONLY_REFUSAL, mayChangeConfig } from "../authorize.js";
import { decodeState } from "../button-values.js";
import { replyForError } from "../commands/error-replies.js";
import { resolveGroup, type ResolveGroupDeps } from "../commands/resolve-group.js";
import { subscribeChannel, subscribeReply, type SubscribeChannelDeps } from "../commands/subscribe.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { subscribeHereSchema } from "../settings-ids.js";
import type { ButtonListener } from "./listeners.js";
import type { Respond } from "./reply.js";
import { STALE_BUTTON } from "./reply.js";

export interface SubscribeHereDeps extends SubscribeChannelDeps, ResolveGroupDeps {
  adminUserIds: readonly string[];
  logger: Logger;
}

const EMPTY_CHANGE = { filters: {}, clearFilters: false, delivery: {} };

/**
 * `groups`' **Subscribe here**: subscribes the channel the listing was asked in, exactly as
 * `/insight subscribe <group>` with no options would (a followed group keeps its settings and
 * is resumed if paused). The group id is read again from the API: a button is only a hint.
 */
export async function subscribeHere(
  deps: SubscribeHereDeps,
  a: { value: string | undefined; channelId: string | undefined; userId: string; respond: Respond },
): Promise<void> {
  const say = (text: string) => a.respond({ replace_original: false, response_type: "ephemeral", text });
  if (!mayChangeConfig(a.userId, deps.adminUserIds)) {
    await say(ADMIN_ONLY_REFUSAL);
    return;
  }
  const target = decodeState(subscribeHereSchema, a.value);
  if (!target || !a.channelId) {
    await say(STALE_BUTTON);
    return;
  }
  let resolved;
  try {
    resolved = await resolveGroup(deps.insight, target.g);
  } catch (err) {
    await deps.reportInsightError(err);
    await say(replyForError(err, `the chat group "${escapeMrkdwn(target.n || target.g)}"`));
    return;
  }
  if (!resolved.ok) {
    await say(resolved.reply);
    return;
  }
  const outcome = await subscribeChannel(deps, {
    channelId: a.channelId,
    userId: a.userId,
    group: resolved.group,
    change: EMPTY_CHANGE,
  });
  // An existing subscription whose saved filters no longer pass the checks is left as it is.
  await say(
    outcome.refused === undefined
      ? subscribeReply(outcome)
      : `This channel's subscription to that group could not be resumed: ${escapeMrkdwn(outcome.refused)} Change it with \`/insight settings\`.`,
  );
}

export function subscribeHereAction(deps: SubscribeHereDeps): ButtonListener {
  return async ({ ack, action, body, respond }) => {
    await ack();
    try {
      await subscribeHere(deps, {
        value: action.value,
        channelId: body.channel?.id,
        userId: body.user.id,
        respond,
      });
    } catch (err) {
      deps.logger.error({ err }, "subscribe here failed");
      await respond({
        replace_original: false,
        response_type: "ephemeral",
        text: "Could not subscribe this channel. Try `/insight subscribe &lt;group&gt;`.",
      }).catch(() => undefined);
    }
  };
}
