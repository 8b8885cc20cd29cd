import type { App } from "@slack/bolt";
import { ACTIONS, DIGEST_ACTIONS } from "../action-ids.js";
import type { ThreadPageDeps } from "../commands/threads.js";
import { publishHome, type HomeDeps } from "../home/publish-home.js";
import {
  PERSONAL_ACTIONS,
  SEARCH_MODAL_CALLBACK,
  SHARE_PICK_CALLBACK,
  SHORTCUTS,
  WATCH_MODAL_CALLBACK,
} from "../personal-ids.js";
import { reactionListener, type ReactionDeps } from "./reactions.js";
import { remindAction, type RemindDeps } from "./remind.js";
import { globalShortcut, messageShortcut, searchSubmit, type SearchShortcutDeps } from "./search-shortcut.js";
import { shareFromModal, sharePickSubmit, type ModalShareDeps } from "./share-from-modal.js";
import {
  reminderCancelAction,
  watchEditAction,
  watchEditSubmit,
  watchRemoveAction,
  type RefreshHome,
  type WatchActionsDeps,
} from "./watch-actions.js";
import {
  cardActionListener,
  pressAssign,
  pressFollow,
  pressMarkHandled,
  type CardActionDeps,
} from "./card-actions.js";
import { homeOpenedEvent } from "./home-opened.js";
import type { MessagesModalDeps } from "./messages.js";
import { messagesPageAction } from "./messages-page.js";
import { resumeAction, type ResumeDeps } from "./resume.js";
import { settingsOpenAction, type SettingsOpenDeps } from "./settings-open.js";
import { subscribeHereAction, type SubscribeHereDeps } from "./settings-subscribe-here.js";
import { settingsSubmitView, type SettingsSubmitDeps } from "./settings-submit.js";
import { SETTINGS_ACTIONS, SETTINGS_MODAL_CALLBACK } from "../settings-ids.js";
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
  SubscribeHereDeps &
  WatchActionsDeps &
  RemindDeps &
  ReactionDeps &
  SearchShortcutDeps &
  ModalShareDeps;

// Paging buttons carry a suffix (`insight.threads.page.next`): Slack wants unique action ids per message.
const prefixed = (id: string) => new RegExp(`^${id.replace(/\./g, "\\.")}(?:\\.|$)`);

/**
 * Buttons, modals, shortcuts, reactions and the Home tab. Every listener acks first (Slack's 3-second deadline),
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
  app.action(
    ACTIONS.share,
    shareAction(deps, (a) => shareFromModal(deps, a)),
  );
  app.action(ACTIONS.resume, resumeAction(deps, help));
  // The digest card's public actions (DESIGN.md); Messages reuses the threads listing's modal.
  app.action(DIGEST_ACTIONS.viewMessages, viewMessagesAction(deps));
  app.action(DIGEST_ACTIONS.markHandled, cardActionListener(deps, pressMarkHandled));
  app.action(DIGEST_ACTIONS.assign, cardActionListener(deps, pressAssign));
  app.action(DIGEST_ACTIONS.follow, cardActionListener(deps, pressFollow));
  app.event("app_home_opened", homeOpenedEvent(deps, help));
  app.action(SETTINGS_ACTIONS.open, settingsOpenAction(deps));
  app.action(SETTINGS_ACTIONS.subscribeHere, subscribeHereAction(deps));
  app.view(SETTINGS_MODAL_CALLBACK, settingsSubmitView(deps));
  // Personal: watches and reminders (watch list, Home), remind me later, reactions, search shortcuts.
  const refreshHome: RefreshHome = (userId, notice) =>
    publishHome(deps, userId, { help, ...(notice !== undefined ? { notice } : {}) });
  app.action(PERSONAL_ACTIONS.watchRemove, watchRemoveAction(deps, refreshHome));
  app.action(PERSONAL_ACTIONS.watchEdit, watchEditAction(deps, refreshHome));
  app.action(PERSONAL_ACTIONS.reminderCancel, reminderCancelAction(deps, refreshHome));
  app.view(WATCH_MODAL_CALLBACK, watchEditSubmit(deps, refreshHome));
  app.action(DIGEST_ACTIONS.remind, remindAction(deps));
  app.event("reaction_added", reactionListener(deps));
  app.event("reaction_removed", reactionListener(deps));
  app.shortcut({ callback_id: SHORTCUTS.searchMessage, type: "message_action" }, messageShortcut(deps));
  app.shortcut({ callback_id: SHORTCUTS.searchGlobal, type: "shortcut" }, globalShortcut(deps));
  app.view(SEARCH_MODAL_CALLBACK, searchSubmit(deps));
  app.view(SHARE_PICK_CALLBACK, sharePickSubmit(deps));
}
