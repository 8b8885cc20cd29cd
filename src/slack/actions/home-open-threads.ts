import { openThreads, type HomeDeps } from "../home/publish-home.js";
import { renderOpenThreadsModal } from "../render/home.js";
import type { ButtonListener } from "./listeners.js";

/**
 * Home's **See all**: a modal listing every open thread the tab counts. It reads Redis only,
 * so the modal opens within Slack's 3-second trigger window without a loading state.
 */
export function homeOpenThreadsAction(
  deps: Pick<HomeDeps, "refs" | "triage" | "slack" | "logger">,
): ButtonListener {
  return async ({ ack, body }) => {
    await ack();
    try {
      const { cards, capped } = await openThreads(deps, body.user.id);
      await deps.slack.openView({
        trigger_id: body.trigger_id,
        view: renderOpenThreadsModal(cards, { capped }),
      });
    } catch (err) {
      deps.logger.warn({ err, user: body.user.id }, "home: the open threads could not be listed");
    }
  };
}
