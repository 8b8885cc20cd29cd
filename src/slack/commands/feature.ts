import type { Feature } from "../../feature.js";
import { registerActions, type ActionsDeps } from "../actions/register.js";
import { groupsCommand, type GroupsDeps } from "./groups.js";
import { listCommand, type ListDeps } from "./list.js";
import { searchCommand, type SearchDeps } from "./search.js";
import { settingsCommand, type SettingsDeps } from "./settings.js";
import { statusCommand, type StatusCommandDeps } from "./status.js";
import { subscribeCommand, type SubscribeDeps } from "./subscribe.js";
import { threadsCommand, type ThreadsDeps } from "./threads.js";
import type { Subcommand } from "./types.js";
import { unsubscribeCommand, type UnsubscribeDeps } from "./unsubscribe.js";

/** Everything the subcommands and their buttons use: each part takes only its own slice. */
export type CommandsDeps = SubscribeDeps &
  UnsubscribeDeps &
  ListDeps &
  GroupsDeps &
  ThreadsDeps &
  SearchDeps &
  StatusCommandDeps &
  SettingsDeps &
  ActionsDeps;

/** The core subcommands, in the order `help` lists them. */
export function coreSubcommands(deps: CommandsDeps): Subcommand[] {
  return [
    subscribeCommand(deps),
    unsubscribeCommand(deps),
    settingsCommand(deps),
    listCommand(deps),
    groupsCommand(deps),
    threadsCommand(deps),
    searchCommand(deps),
    statusCommand(deps),
  ];
}

/** Subscriptions, listings, search and status; their buttons, the messages modal and the Home tab. */
export const commandsFeature: Feature<CommandsDeps, Subcommand> = {
  name: "commands",
  subcommands: coreSubcommands,
  interactions: registerActions,
};
