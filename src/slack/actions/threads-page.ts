import { debugOnFailure } from "../../log.js";
import { decodeState, threadsStateSchema } from "../button-values.js";
import { loadThreadPage, type ThreadPageDeps } from "../commands/threads.js";
import { renderThreadList } from "../render/thread-list.js";
import type { ButtonListener } from "./listeners.js";
import { STALE_BUTTON, type Respond } from "./reply.js";

/** Previous/Next/other group of a threads listing: the ephemeral message is replaced in place. */
export async function turnThreadsPage(
  deps: ThreadPageDeps,
  value: string | undefined,
  respond: Respond,
): Promise<void> {
  const state = decodeState(threadsStateSchema, value);
  if (!state) {
    await respond({ replace_original: false, text: STALE_BUTTON });
    return;
  }
  const result = await loadThreadPage(deps, state);
  const rendered = renderThreadList({ state, result });
  await respond({ replace_original: true, text: rendered.text, blocks: rendered.blocks });
}

export function threadsPageAction(deps: ThreadPageDeps): ButtonListener {
  return async ({ ack, action, respond }) => {
    await ack();
    try {
      await turnThreadsPage(deps, action.value, respond);
    } catch (err) {
      deps.logger.error({ err }, "threads page failed");
      await respond({ replace_original: false, text: "Could not turn the page. Try again." }).catch(
        debugOnFailure(deps.logger, "threads page: the failure reply was not delivered"),
      );
    }
  };
}
