import { decodeState, threadRefSchema, type ThreadRef } from "../button-values.js";
import type { ButtonListener } from "./listeners.js";
import { loadMessagesView, type MessagesModalDeps } from "./messages.js";

/** Previous/Next inside the modal: the same view is updated in place. */
export async function turnMessagesPage(
  deps: MessagesModalDeps,
  viewId: string,
  ref: ThreadRef,
): Promise<void> {
  const view = await loadMessagesView(deps, ref);
  await deps.slack.updateView({ view_id: viewId, view });
}

export function messagesPageAction(deps: MessagesModalDeps): ButtonListener {
  return async ({ ack, action, body }) => {
    await ack();
    const ref = decodeState(threadRefSchema, action.value);
    const viewId = body.view?.id;
    if (!ref || !viewId) return;
    try {
      await turnMessagesPage(deps, viewId, ref);
    } catch (err) {
      deps.logger.error({ err, threadId: ref.t }, "messages page failed");
    }
  };
}
