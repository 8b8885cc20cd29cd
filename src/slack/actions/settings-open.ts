import type { Logger } from "../../log.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { ADMIN_ONLY_REFUSAL, mayChangeConfig } from "../authorize.js";
import { decodeState } from "../button-values.js";
import type { SlackApi } from "../client.js";
import { DELIVERY_MODES } from "../../domain/subscription.js";
import { renderSettingsModal } from "../render/settings-modal.js";
import { subscriptionRefSchema } from "../settings-ids.js";
import type { ButtonListener, SelectListener } from "./listeners.js";
import { STALE_BUTTON } from "./reply.js";

/** What opening the settings modal reads and calls. */
export interface SettingsOpenDeps {
  subscriptions: Pick<SubscriptionStore, "get">;
  slack: Pick<SlackApi, "openView" | "updateView">;
  adminUserIds: readonly string[];
  /** The channel's zone, named next to the digest times. */
  timeZoneOf: (channelId: string) => Promise<string>;
  logger: Logger;
}

export type OpenOutcome = "opened" | "gone" | "refused";

/**
 * Opens the modal of one subscription with its current values. The trigger_id lives 3 s, so
 * this reads one Redis hash and calls views.open at once; nothing slower comes first.
 */
export async function openSettingsModal(
  deps: SettingsOpenDeps,
  a: { triggerId: string; channelId: string; groupId: string; userId: string },
): Promise<OpenOutcome> {
  if (!mayChangeConfig(a.userId, deps.adminUserIds)) return "refused";
  const sub = await deps.subscriptions.get(a.channelId, a.groupId);
  if (!sub) return "gone";
  const timeZone = await deps.timeZoneOf(sub.channelId);
  await deps.slack.openView({ trigger_id: a.triggerId, view: renderSettingsModal(sub, { timeZone }) });
  return "opened";
}

/** The Settings button of `list` (and of Home): the modal of the subscription it names. */
export function settingsOpenAction(deps: SettingsOpenDeps): ButtonListener {
  return async ({ ack, action, body, respond }) => {
    await ack();
    const ref = decodeState(subscriptionRefSchema, action.value);
    const say = (text: string) =>
      respond({ replace_original: false, response_type: "ephemeral", text }).catch((err: unknown) => {
        deps.logger.debug({ err }, "settings: the reply was not delivered");
      });
    if (!ref) {
      await say(STALE_BUTTON);
      return;
    }
    try {
      const outcome = await openSettingsModal(deps, {
        triggerId: body.trigger_id,
        channelId: ref.c,
        groupId: ref.g,
        userId: body.user.id,
      });
      if (outcome === "refused") await say(ADMIN_ONLY_REFUSAL);
      else if (outcome === "gone")
        await say("This channel no longer follows that chat group. See `/insight list`.");
    } catch (err) {
      deps.logger.error({ err, channel: ref.c, groupId: ref.g }, "settings modal failed to open");
      await say("Could not open the settings. Try the button again.");
    }
  };
}

/**
 * The modal's mode was changed: the modal is drawn again with the settings of that mode (the
 * period for digests; card format and replies for cards). Slack keeps what was typed in the
 * inputs that stay (same block and action ids).
 */
export function settingsModeAction(deps: SettingsOpenDeps): SelectListener {
  return async ({ ack, action, body }) => {
    await ack();
    const view = body.view;
    const ref = decodeState(subscriptionRefSchema, view?.private_metadata);
    const mode = DELIVERY_MODES.find((m) => m === action.selected_option.value);
    if (!view || !ref || !mode) return;
    try {
      const sub = await deps.subscriptions.get(ref.c, ref.g);
      if (!sub) return;
      const timeZone = await deps.timeZoneOf(sub.channelId);
      await deps.slack.updateView({
        view_id: view.id,
        hash: view.hash,
        view: renderSettingsModal(sub, { timeZone, mode }),
      });
    } catch (err) {
      // A stale hash (the person typed meanwhile) or Slack down: the modal stays as it was.
      deps.logger.info({ err, channel: ref.c, groupId: ref.g }, "settings: the modal was not redrawn");
    }
  };
}
