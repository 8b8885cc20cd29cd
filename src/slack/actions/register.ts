import type { App, BlockAction, Middleware, StaticSelectAction } from "@slack/bolt";
import type { DepsOf } from "../../feature.js";
import { perRequest } from "../per-request.js";
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
export function registerActions(app: App, depsOf: DepsOf<ActionsDeps>): void {
  const on = <A>(make: (deps: ActionsDeps) => Middleware<A>) => perRequest(depsOf, make);
  app.action(prefixed(ACTIONS.threadsPage), on(threadsPageAction));
  app.action(ACTIONS.viewMessages, on(viewMessagesAction));
  app.action(prefixed(ACTIONS.messagesPage), on(messagesPageAction));
  app.action(
    ACTIONS.share,
    on((d) => shareAction(d, (a) => shareFromModal(d, a))),
  );
  app.action(ACTIONS.resume, on(resumeAction));
  // The digest card's public actions (docs/using.md); Messages reuses the threads listing's modal.
  app.action(DIGEST_ACTIONS.viewMessages, on(viewMessagesAction));
  app.action(
    DIGEST_ACTIONS.markHandled,
    on((d) => cardActionListener(d, pressMarkHandled)),
  );
  app.action(
    DIGEST_ACTIONS.assign,
    on((d) => cardActionListener(d, pressAssign)),
  );
  app.action(
    DIGEST_ACTIONS.follow,
    on((d) => cardActionListener(d, pressFollow)),
  );
  app.event("app_home_opened", on(homeOpenedEvent));
  app.action(ACTIONS.homeOpenThreads, on(homeOpenThreadsAction));
  app.action(SETTINGS_ACTIONS.open, on(settingsOpenAction));
  // The settings modal's mode: redrawn with that mode's settings only.
  app.action<BlockAction<StaticSelectAction>>(
    { type: "block_actions", block_id: SETTINGS_FIELDS.mode, action_id: SETTINGS_INPUT },
    on(settingsModeAction),
  );
  app.action(SETTINGS_ACTIONS.subscribeHere, on(subscribeHereAction));
  app.view(SETTINGS_MODAL_CALLBACK, on(settingsSubmitView));
  // Personal: watches and reminders (watch list, Home), remind me later, reactions, search shortcuts.
  const refreshing =
    (d: ActionsDeps): RefreshHome =>
    (userId, notice) =>
      publishHome(d, userId, notice !== undefined ? { notice } : {});
  app.action(
    PERSONAL_ACTIONS.watchRemove,
    on((d) => watchRemoveAction(d, refreshing(d))),
  );
  app.action(
    PERSONAL_ACTIONS.watchEdit,
    on((d) => watchEditAction(d, refreshing(d))),
  );
  app.action(
    PERSONAL_ACTIONS.reminderCancel,
    on((d) => reminderCancelAction(d, refreshing(d))),
  );
  app.view(
    WATCH_MODAL_CALLBACK,
    on((d) => watchEditSubmit(d, refreshing(d))),
  );
  app.action(DIGEST_ACTIONS.remind, on(remindAction));
  app.event("reaction_added", on(reactionListener));
  app.event("reaction_removed", on(reactionListener));
  app.shortcut({ callback_id: SHORTCUTS.searchMessage, type: "message_action" }, on(messageShortcut));
  app.shortcut({ callback_id: SHORTCUTS.searchGlobal, type: "shortcut" }, on(globalShortcut));
  app.view(SEARCH_MODAL_CALLBACK, on(searchSubmit));
  app.view(SHARE_PICK_CALLBACK, on(sharePickSubmit));
}
