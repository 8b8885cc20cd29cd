import type { AppServices } from "../../runtime.js";
import { isSlackCallError } from "../errors.js";
import { renderSharedResult } from "../render/shared-result.js";
import { channelRef } from "../render/status.js";
import type { Respond } from "./reply.js";
import { STALE_BUTTON } from "./reply.js";
import { decodeState, shareStateSchema } from "./state.js";

const NOT_IN_CHANNEL = new Set(["not_in_channel", "channel_not_found", "is_archived"]);

/** "Share in channel": posts the result visibly, says who shared it, and tells the sharer. */
export async function shareResult(
  services: AppServices,
  a: {
    value: string | undefined;
    channelId: string | undefined;
    userId: string;
    respond: Respond;
    now?: Date;
  },
): Promise<void> {
  const share = decodeState(shareStateSchema, a.value);
  if (!share || !a.channelId) {
    await a.respond({ replace_original: false, text: STALE_BUTTON });
    return;
  }
  const msg = renderSharedResult(share, a.userId, a.now);
  try {
    await services.slack.postMessage({
      channel: a.channelId,
      text: msg.text,
      blocks: msg.blocks,
      unfurl_links: false,
      unfurl_media: false,
    });
  } catch (err) {
    const code = isSlackCallError(err) ? err.code : "unknown";
    services.logger.warn({ channel: a.channelId, code }, "share in channel failed");
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
    text: `:white_check_mark: Shared in ${channelRef(a.channelId)}.`,
  });
}
