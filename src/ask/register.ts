import { Assistant, type App } from "@slack/bolt";
import { ACTIONS } from "../slack/action-ids.js";
import type { ButtonListener } from "../slack/actions/listeners.js";
import { threadContextStore, threadStartedListener, userMessageListener } from "./assistant-listeners.js";
import type { AskDepsOf } from "./deps.js";
import { mentionListener } from "./mention-listener.js";
import { askMoreAction } from "./more-action.js";

/**
 * The assistant's listeners: the assistant thread (Bolt's Assistant), mentions in channels and
 * the "Show more" button. Each request acts with its own workspace's deps (`depsOf(context)`).
 * The messages modal behind "View messages" is the threads listing's (registered with it).
 */
export function registerAsk(app: App, depsOf: AskDepsOf): void {
  app.assistant(
    new Assistant({
      threadContextStore: threadContextStore(depsOf),
      threadStarted: (args) => threadStartedListener(depsOf(args.context))(args),
      userMessage: (args) => userMessageListener(depsOf(args.context))(args),
    }),
  );
  app.event("app_mention", (args) => mentionListener(depsOf(args.context))(args));
  const more: ButtonListener = (args) => askMoreAction(depsOf(args.context))(args);
  app.action(ACTIONS.askMore, more);
}
