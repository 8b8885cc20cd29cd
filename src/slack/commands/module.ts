import type { RelayModule } from "../../modules.js";
import type { AppServices } from "../../runtime.js";
import { registerInteractions } from "../interactions/register.js";
import { groups } from "./groups.js";
import type { CommandRouter } from "./router.js";
import { search } from "./search.js";
import { status } from "./status.js";
import { threads } from "./threads.js";
import type { Subcommand } from "./types.js";

// The Home tab's quick help lists the router's subcommands; the router is per web role.
const routers = new WeakMap<AppServices, CommandRouter>();

/** `groups`, `threads`, `search`, `status`, their buttons and modal, and the App Home tab. */
export const commandsModule: RelayModule = {
  name: "commands",
  commands(router, services) {
    for (const c of [groups, threads, search, status]) router.register(c);
    routers.set(services, router);
  },
  interactions(app, services) {
    const help = (): readonly Subcommand[] => routers.get(services)?.all ?? [groups, threads, search, status];
    registerInteractions(app, services, help);
  },
};
