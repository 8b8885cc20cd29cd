import type { App, BlockAction, StaticSelectAction } from "@slack/bolt";
import { ACTIONS, DIGEST_ACTIONS } from "../action-ids.js";
import type { ThreadPageDeps } from "../commands/threads.js";
import type { HomeDeps } from "../home/publish-home.js";
import {
  cardActionListener,
  pressAssign,
  pressFollow,
  pressMarkHandled,
  type CardActionDeps,
} from "./card-actions.js";
import { homeOpenedEvent } from "./home-opened.js";
import { homeOpenThreadsAction } from "./home-open-threads.js";
import type { MessagesModalDeps } from "./messages.js";
import { messagesPageAction } from "./messages-page.js";
import { resumeAction, type ResumeDeps } from "./resume.js";
import { settingsModeAction, settingsOpenAction, type SettingsOpenDeps } from "./settings-open.js";
import { subscribeHereAction, type SubscribeHereDeps } from "./settings-subscribe-here.js";
import { settingsSubmitView, type SettingsSubmitDeps } from "./settings-submit.js";
import { SETTINGS_ACTIONS, SETTINGS_MODAL_CALLBACK } from "../settings-ids.js";
import { SETTINGS_FIELDS, SETTINGS_INPUT } from "../render/settings-modal.js";
import { shareAction, type ShareDeps } from "./share.js";
import { threadsPageAction } from "./threads-page.js";
import { viewMessagesAction } from "./view-messages.js";

/** What the buttons, the messages modal and the Home tab use, together. */
export type ActionsDeps = ThreadPageDeps &
  MessagesModalDeps &
  ShareDeps &
  ResumeDeps &
  HomeDeps &
  CardActionDeps &
  SettingsOpenDeps &
  SettingsSubmitDeps &
  SubscribeHereDeps;

// Paging buttons carry a suffix (`insight.threads.page.next`): Slack wants unique action ids per message.
const prefixed = (id: string) => new RegExp(`^${id.replace(/\./g, "\\.")}(?:\\.|$)`);

/**
 * Buttons, modals and the Home tab. Every listener acks first (Slack's 3-second deadline),
 * then works; replies go through the action's response_url or the Web API.
 */
export function registerActions(
  app: App,
  deps: ActionsDeps,
  help: readonly { usage: string; summary: string }[],
): void {
  app.action(prefixed(ACTIONS.threadsPage), threadsPageAction(deps));
  app.action(ACTIONS.viewMessages, viewMessagesAction(deps));
  app.action(prefixed(ACTIONS.messagesPage), messagesPageAction(deps));
  app.action(ACTIONS.share, shareAction(deps));
  app.action(ACTIONS.resume, resumeAction(deps, help));
  // The digest card's public actions (DESIGN.md); Messages reuses the threads listing's modal.
  app.action(DIGEST_ACTIONS.viewMessages, viewMessagesAction(deps));
  app.action(DIGEST_ACTIONS.markHandled, cardActionListener(deps, pressMarkHandled));
  app.action(DIGEST_ACTIONS.assign, cardActionListener(deps, pressAssign));
  app.action(DIGEST_ACTIONS.follow, cardActionListener(deps, pressFollow));
  app.event("app_home_opened", homeOpenedEvent(deps, help));
  app.action(ACTIONS.homeOpenThreads, homeOpenThreadsAction(deps));
  app.action(SETTINGS_ACTIONS.open, settingsOpenAction(deps));
  // The settings modal's mode: redrawn with that mode's settings only.
  app.action<BlockAction<StaticSelectAction>>(
    { type: "block_actions", block_id: SETTINGS_FIELDS.mode, action_id: SETTINGS_INPUT },
    settingsModeAction(deps),
  );
  app.action(SETTINGS_ACTIONS.subscribeHere, subscribeHereAction(deps));
  app.view(SETTINGS_MODAL_CALLBACK, settingsSubmitView(deps));
}
