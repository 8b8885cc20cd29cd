import type { Feature } from "../feature.js";
import type { Subcommand } from "../slack/commands/types.js";
import { askCommand } from "./ask-command.js";
import type { AskDepsOf } from "./deps.js";
import { registerAsk } from "./register.js";

/** Asking the community: `/insight ask`, the assistant thread, mentions in channels. */
export function askFeature(depsOf: AskDepsOf): Feature<Subcommand> {
  return {
    name: "ask",
    subcommands: [askCommand(depsOf)],
    interactions: (app) => registerAsk(app, depsOf),
  };
}
