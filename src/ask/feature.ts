import type { Feature } from "../feature.js";
import type { Subcommand } from "../slack/commands/types.js";
import { askCommand } from "./ask-command.js";
import type { AskDeps } from "./deps.js";
import { registerAsk } from "./register.js";

/** Asking the community: `/insight ask`, the assistant thread, mentions in channels. */
export const askFeature: Feature<AskDeps, Subcommand> = {
  name: "ask",
  subcommands: (deps) => [askCommand(deps)],
  interactions: registerAsk,
};
