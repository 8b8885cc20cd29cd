import type { Logger } from "../../log.js";
import type { SlackApi } from "../client.js";
import { isSlackCallError } from "../errors.js";
import { renderSharedResult } from "../render/shared-result.js";
import { channelRef } from "../render/status.js";
import { EMOJI } from "../render/wording.js";
import type { Respond } from "./reply.js";
import { STALE_BUTTON } from "./reply.js";
import { decodeState, shareStateSchema } from "../button-values.js";
import type { ButtonListener } from "./listeners.js";
import type { FormValues } from "./settings-submit.js";

export interface ShareDeps {
  slack: Pick<SlackApi, "postMessage">;
  logger: Logger;
}

const NOT_IN_CHANNEL = new Set(["not_in_channel", "channel_not_found", "is_archived"]);

/** "Share in channel": posts the result visibly, says who shared it, and tells the sharer. */
export async function shareResult(
  deps: ShareDeps,
  a: {
    value: string | undefined;
    channelId: string | undefined;
    userId: string;
    respond: Respond;
  },
): Promise<void> {
  const share = decodeState(shareStateSchema, a.value);
  if (!share || !a.channelId) {
    await a.respond({ replace_original: false, text: STALE_BUTTON });
    return;
  }
  const msg = renderSharedResult(share, a.userId);
  try {
    await deps.slack.postMessage({
      channel: a.channelId,
      text: msg.text,
      blocks: msg.blocks,
      unfurl_links: false,
      unfurl_media: false,
    });
  } catch (err) {
    const code = isSlackCallError(err) ? err.code : "unknown";
    deps.logger.warn({ channel: a.channelId, code }, "share in channel failed");
    await a.respond({
      replace_original: false,
      text: NOT_IN_CHANNEL.has(code)
        ? "The app cannot post in this channel. Invite it first (`/invite @Insight Relay`), then share again."
        : `Slack did not accept the post (\`${code}\`). Try again in a moment.`,
    });
    return;
  }
  await a.respond({
    replace_original: false,
    text: `${EMOJI.ok} Shared in ${channelRef(a.channelId)}.`,
  });
}

/**
 * "Share in channel" under a search result. Pressed inside a modal (the search shortcut's), it
 * has no channel and no response_url of its own: `fromModal` takes over.
 */
export function shareAction(
  deps: ShareDeps,
  fromModal?: (a: {
    value: string | undefined;
    userId: string;
    triggerId: string;
    values: FormValues;
    privateMetadata: string | undefined;
  }) => Promise<unknown>,
): ButtonListener {
  return async ({ ack, action, body, respond }) => {
    await ack();
    try {
      if (body.view?.type === "modal" && fromModal) {
        await fromModal({
          value: action.value,
          userId: body.user.id,
          triggerId: body.trigger_id,
          values: body.view.state.values as FormValues,
          privateMetadata: body.view.private_metadata,
        });
        return;
      }
      await shareResult(deps, {
        value: action.value,
        channelId: body.channel?.id ?? body.container?.channel_id,
        userId: body.user.id,
        respond,
      });
    } catch (err) {
      deps.logger.error({ err }, "share failed");
    }
  };
}
