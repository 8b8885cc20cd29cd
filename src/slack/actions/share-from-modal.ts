import type { Middleware, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import type { SlackApi } from "../client.js";
import { decodeState } from "../button-values.js";
import { searchModalStateSchema } from "../personal-ids.js";
import { renderSharePicker, SEARCH_FIELDS, SEARCH_INPUT } from "../render/search-modal.js";
import type { Respond } from "./reply.js";
import type { FormValues } from "./settings-submit.js";
import { shareResult, type ShareDeps } from "./share.js";

/*
 * "Share in channel" pressed inside the search modal: a modal has no channel and no
 * response_url, so the channel is the one picked in the form (or the one the message shortcut
 * came from), and the sharer hears back privately in that channel (or by DM). With no channel
 * yet, a small modal asks for one.
 */

export interface ModalShareDeps extends ShareDeps {
  slack: Pick<SlackApi, "postMessage" | "postEphemeral" | "pushView">;
}

/** What a press inside a view carries that the share needs. */
export interface ModalPress {
  value: string | undefined;
  userId: string;
  triggerId: string;
  /** The view's current form values and metadata. */
  values: FormValues;
  privateMetadata: string | undefined;
}

/** Tells the sharer privately: an ephemeral in the channel, else a DM. */
function privately(deps: ModalShareDeps, channel: string, user: string): Respond {
  return async (reply) => {
    try {
      await deps.slack.postEphemeral({ channel, user, text: reply.text });
    } catch {
      await deps.slack.postMessage({ channel: user, text: reply.text }).catch((err: unknown) => {
        deps.logger.warn({ err }, "share: the sharer could not be told");
      });
    }
  };
}

const pickedChannel = (values: FormValues) =>
  (values[SEARCH_FIELDS.shareTo]?.[SEARCH_INPUT] as { selected_conversation?: string | null } | undefined)
    ?.selected_conversation ?? undefined;

export async function shareFromModal(deps: ModalShareDeps, p: ModalPress): Promise<"shared" | "asked"> {
  const channel =
    pickedChannel(p.values) ?? decodeState(searchModalStateSchema, p.privateMetadata)?.c ?? undefined;
  if (!channel || channel.startsWith("D")) {
    await deps.slack.pushView({ trigger_id: p.triggerId, view: renderSharePicker(p.value ?? "") });
    return "asked";
  }
  await shareResult(deps, {
    value: p.value,
    channelId: channel,
    userId: p.userId,
    respond: privately(deps, channel, p.userId),
  });
  return "shared";
}

type ViewListener = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;

/** The picker's Share: posts the result in the chosen channel and goes back to the results. */
export function sharePickSubmit(deps: ModalShareDeps): ViewListener {
  return async ({ ack, body, view }) => {
    const channel = pickedChannel(view.state.values as FormValues);
    if (!channel) {
      await ack({
        response_action: "errors",
        errors: { [SEARCH_FIELDS.shareTo]: "Pick a channel to share in." },
      });
      return;
    }
    await ack();
    try {
      await shareResult(deps, {
        value: view.private_metadata,
        channelId: channel,
        userId: body.user.id,
        respond: privately(deps, channel, body.user.id),
      });
    } catch (err) {
      deps.logger.error({ err }, "share from the picker failed");
    }
  };
}
