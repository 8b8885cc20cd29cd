import { publishHome, type HomeDeps } from "../home/publish-home.js";
import type { HomeOpenedListener } from "./listeners.js";

/** `app_home_opened`: publishes the user's Home tab (the Messages tab is left alone). */
export function homeOpenedEvent(deps: HomeDeps): HomeOpenedListener {
  return async ({ event }) => {
    if (event.tab !== undefined && event.tab !== "home") return;
    try {
      await publishHome(deps, event.user);
    } catch (err) {
      deps.logger.error({ err, user: event.user }, "home tab publish failed");
    }
  };
}
