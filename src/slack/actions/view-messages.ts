import { debugOnFailure } from "../../log.js";
import { decodeState, threadRefSchema, type ThreadRef } from "../button-values.js";
import { renderMessagesLoading } from "../render/messages-modal.js";
import type { ButtonListener } from "./listeners.js";
import { loadMessagesView, type MessagesModalDeps } from "./messages.js";
import { STALE_BUTTON } from "./reply.js";

/**
 * Opens the modal at once with a loading view (the trigger_id expires 3 s after the click,
 * and the listing may take longer), then fills it in with views.update.
 */
export async function openMessagesModal(
  deps: MessagesModalDeps,
  triggerId: string,
  ref: ThreadRef,
  o: { fromModal?: boolean } = {},
): Promise<void> {
  const loading = {
    trigger_id: triggerId,
    view: renderMessagesLoading({ groupId: ref.g, threadId: ref.t, title: ref.n }),
  };
  // Pressed inside a modal (the search shortcut's): stacked on it, as Slack wants.
  const opened = o.fromModal ? await deps.slack.pushView(loading) : await deps.slack.openView(loading);
  const view = await loadMessagesView(deps, ref);
  await deps.slack.updateView({ view_id: opened.id, view });
}

/** The "Messages" button of thread listings and weekly summaries: the thread's messages in a modal. */
export function viewMessagesAction(deps: MessagesModalDeps): ButtonListener {
  const replyFailed = debugOnFailure(deps.logger, "messages modal: the reply was not delivered");
  return async ({ ack, action, body, respond }) => {
    await ack();
    const ref = decodeState(threadRefSchema, action.value);
    if (!ref) {
      await respond?.({ replace_original: false, text: STALE_BUTTON }).catch(replyFailed);
      return;
    }
    try {
      await openMessagesModal(deps, body.trigger_id, ref, { fromModal: body.view?.type === "modal" });
    } catch (err) {
      deps.logger.error({ err, threadId: ref.t }, "messages modal failed");
      await respond?.({
        replace_original: false,
        text: "Could not open the messages. Try the button again.",
      }).catch(replyFailed);
    }
  };
}
