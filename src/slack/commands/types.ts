import type { KnownBlock } from "@slack/types";
import type { AppServices } from "../../runtime.js";

/** What a reply to a slash command carries; ephemeral unless said otherwise. */
export interface CommandReply {
  text: string;
  blocks?: KnownBlock[];
  response_type?: "ephemeral" | "in_channel";
  replace_original?: boolean;
}

export interface CommandContext {
  /** Words after the subcommand, quotes respected. */
  args: string[];
  /** Text after the subcommand, as typed. */
  rest: string;
  userId: string;
  channelId: string;
  teamId: string | undefined;
  triggerId: string | undefined;
  respond: (reply: CommandReply) => Promise<void>;
  services: AppServices;
}

export interface Subcommand {
  name: string;
  /** Grammar shown by `help`, e.g. "subscribe <group> [filters]". */
  usage: string;
  summary: string;
  /** Changes configuration: refused to non-admins when ADMIN_USER_IDS is set. */
  mutates: boolean;
  run(ctx: CommandContext): Promise<void>;
}
