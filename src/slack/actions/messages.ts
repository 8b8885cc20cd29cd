import type { InsightClient } from "../../insight/client.js";
import type { Logger } from "../../log.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import type { ThreadRef } from "../button-values.js";
import type { SlackApi, ViewPayload } from "../client.js";
import { replyForError } from "../commands/error-replies.js";
import { MESSAGES_PAGE_SIZE, renderMessagesModal } from "../render/messages-modal.js";

/** What the messages modal reads and writes. */
export interface MessagesModalDeps {
  insight: Pick<InsightClient, "listMessages">;
  slack: Pick<SlackApi, "openView" | "pushView" | "updateView">;
  logger: Logger;
  reportInsightError: ReportInsightError;
}

/** One page of a thread's messages as a modal view; failures become the modal's words. */
export async function loadMessagesView(
  deps: Omit<MessagesModalDeps, "slack">,
  ref: ThreadRef,
  now: Date = new Date(),
): Promise<ViewPayload> {
  const base = { groupId: ref.g, threadId: ref.t, title: ref.n, page: ref.p, now };
  try {
    const page = await deps.insight.listMessages(ref.g, {
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
    deps.logger.warn({ groupId: ref.g, threadId: ref.t, err }, "messages modal: listing failed");
    await deps.reportInsightError(err);
    return renderMessagesModal({
      ...base,
      result: { ok: false, error: replyForError(err, "this thread's messages") },
    });
  }
}
