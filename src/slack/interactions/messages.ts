import type { ViewPayload } from "../client.js";
import type { AppServices } from "../../runtime.js";
import { replyForError } from "../commands/error-replies.js";
import { MESSAGES_PAGE_SIZE, renderMessagesLoading, renderMessagesModal } from "../render/messages-modal.js";
import type { ThreadRef } from "./state.js";

/** One page of a thread's messages as a modal view; failures become the modal's words. */
export async function loadMessagesView(
  services: AppServices,
  ref: ThreadRef,
  now: Date = new Date(),
): Promise<ViewPayload> {
  const base = { groupId: ref.g, threadId: ref.t, title: ref.n, page: ref.p, now };
  try {
    const page = await services.insight.client.listMessages(ref.g, {
      chatThreadId: ref.t,
      page: ref.p,
      limit: MESSAGES_PAGE_SIZE,
      // Oldest first: a conversation reads top to bottom.
      sort: "asc",
    });
    return renderMessagesModal({
      ...base,
      result: { ok: true, messages: page.data, pagination: page.pagination },
    });
  } catch (err) {
    services.logger.warn(
      { groupId: ref.g, threadId: ref.t, err: err instanceof Error ? err.message : String(err) },
      "messages modal: listing failed",
    );
    await services.reportInsightError(err).catch(() => undefined);
    return renderMessagesModal({
      ...base,
      result: { ok: false, error: replyForError(err, "this thread's messages") },
    });
  }
}

/**
 * Opens the modal at once with a loading view (the trigger_id expires 3 s after the click,
 * and the listing may take longer), then fills it in with views.update.
 */
export async function openMessagesModal(
  services: AppServices,
  triggerId: string,
  ref: ThreadRef,
): Promise<void> {
  const opened = await services.slack.openView({
    trigger_id: triggerId,
    view: renderMessagesLoading({ groupId: ref.g, threadId: ref.t, title: ref.n }),
  });
  const view = await loadMessagesView(services, ref);
  await services.slack.updateView({ view_id: opened.id, view });
}

/** Previous/Next inside the modal: the same view is updated in place. */
export async function turnMessagesPage(services: AppServices, viewId: string, ref: ThreadRef): Promise<void> {
  const view = await loadMessagesView(services, ref);
  await services.slack.updateView({ view_id: viewId, view });
}
