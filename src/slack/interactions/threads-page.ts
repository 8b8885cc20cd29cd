import type { AppServices } from "../../runtime.js";
import { loadThreadPage } from "../commands/threads.js";
import { renderThreadList } from "../render/thread-list.js";
import type { Respond } from "./reply.js";
import { STALE_BUTTON } from "./reply.js";
import { decodeState, threadsStateSchema } from "./state.js";

/** Previous/Next/other group of a threads listing: the ephemeral message is replaced in place. */
export async function turnThreadsPage(
  services: AppServices,
  value: string | undefined,
  respond: Respond,
  now: Date = new Date(),
): Promise<void> {
  const state = decodeState(threadsStateSchema, value);
  if (!state) {
    await respond({ replace_original: false, text: STALE_BUTTON });
    return;
  }
  const result = await loadThreadPage(services, state);
  const rendered = renderThreadList({ state, result, now });
  await respond({ replace_original: true, text: rendered.text, blocks: rendered.blocks });
}
