import type { App, BlockAction, ButtonAction } from "@slack/bolt";
import type { AppServices } from "../../runtime.js";
import type { Subcommand } from "../commands/types.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { publishHome } from "../home/publish-home.js";
import { channelRef } from "../render/status.js";
import { ADMIN_ONLY_REFUSAL, mayChangeConfig } from "./authorize.js";
import { openMessagesModal, turnMessagesPage } from "./messages.js";
import { STALE_BUTTON } from "./reply.js";
import { shareResult } from "./share.js";
import { ACTIONS, decodeState, resumeStateSchema, threadRefSchema } from "./state.js";
import { turnThreadsPage } from "./threads-page.js";

type ButtonBody = BlockAction<ButtonAction>;

const prefixed = (id: string) => new RegExp(`^${id.replace(/\./g, "\\.")}(?:\\.|$)`);
const errText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Buttons, modals and the Home tab. Every listener acks first (Slack's 3-second deadline),
 * then works; replies go through the action's response_url or the Web API.
 */
export function registerInteractions(
  app: App,
  services: AppServices,
  help: () => readonly Subcommand[],
): void {
  const { logger } = services;

  app.action<ButtonBody>(prefixed(ACTIONS.threadsPage), async ({ ack, action, respond }) => {
    await ack();
    try {
      await turnThreadsPage(services, action.value, respond);
    } catch (err) {
      logger.error({ err: errText(err) }, "threads page failed");
      await respond({ replace_original: false, text: "Could not turn the page. Try again." }).catch(
        () => undefined,
      );
    }
  });

  app.action<ButtonBody>(ACTIONS.viewMessages, async ({ ack, action, body, respond }) => {
    await ack();
    const ref = decodeState(threadRefSchema, action.value);
    if (!ref) {
      await respond({ replace_original: false, text: STALE_BUTTON }).catch(() => undefined);
      return;
    }
    try {
      await openMessagesModal(services, body.trigger_id, ref);
    } catch (err) {
      logger.error({ err: errText(err), threadId: ref.t }, "messages modal failed");
      await respond({
        replace_original: false,
        text: "Could not open the messages. Try the button again.",
      }).catch(() => undefined);
    }
  });

  app.action<ButtonBody>(prefixed(ACTIONS.messagesPage), async ({ ack, action, body }) => {
    await ack();
    const ref = decodeState(threadRefSchema, action.value);
    const viewId = body.view?.id;
    if (!ref || !viewId) return;
    try {
      await turnMessagesPage(services, viewId, ref);
    } catch (err) {
      logger.error({ err: errText(err), threadId: ref.t }, "messages page failed");
    }
  });

  app.action<ButtonBody>(ACTIONS.share, async ({ ack, action, body, respond }) => {
    await ack();
    try {
      await shareResult(services, {
        value: action.value,
        channelId: body.channel?.id ?? body.container?.channel_id,
        userId: body.user.id,
        respond,
      });
    } catch (err) {
      logger.error({ err: errText(err) }, "share failed");
    }
  });

  app.action<ButtonBody>(ACTIONS.resume, async ({ ack, action, body }) => {
    await ack();
    const userId = body.user.id;
    try {
      if (!mayChangeConfig(userId, services.config.adminUserIds)) {
        await publishHome(services, userId, { help: help(), notice: ADMIN_ONLY_REFUSAL });
        return;
      }
      const target = decodeState(resumeStateSchema, action.value);
      const sub = target ? await services.subscriptions.get(target.c, target.g) : undefined;
      let notice = STALE_BUTTON;
      if (target && sub) {
        const resumed = await services.subscriptions.resume(target.c, target.g);
        const name = `*${escapeMrkdwn(sub.groupName || sub.groupId)}*`;
        notice = resumed
          ? `:arrow_forward: Resumed digests of ${name} in ${channelRef(target.c)}.`
          : `${name} in ${channelRef(target.c)} was not paused.`;
        logger.info(
          { channel: target.c, groupId: target.g, user: userId, resumed },
          "subscription resumed from Home",
        );
      }
      await publishHome(services, userId, { help: help(), notice });
    } catch (err) {
      logger.error({ err: errText(err) }, "resume failed");
    }
  });

  app.event("app_home_opened", async ({ event }) => {
    if (event.tab !== undefined && event.tab !== "home") return;
    try {
      await publishHome(services, event.user, { help: help() });
    } catch (err) {
      logger.error({ err: errText(err), user: event.user }, "home tab publish failed");
    }
  });
}
