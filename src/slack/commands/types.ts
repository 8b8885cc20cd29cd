import type { KnownBlock } from "@slack/types";

/** What a reply to a slash command carries; ephemeral unless said otherwise. */
export interface CommandReply {
  text: string;
  blocks?: KnownBlock[];
  response_type?: "ephemeral" | "in_channel";
  replace_original?: boolean;
}

/** One `/insight` request: who asked, where, and how to answer. Nothing of the app. */
export interface CommandRequest {
  userId: string;
  channelId: string;
  teamId: string | undefined;
  triggerId: string | undefined;
  respond: (reply: CommandReply) => Promise<void>;
}

export interface CommandContext extends CommandRequest {
  /** Words after the subcommand, quotes respected. */
  args: string[];
  /** Text after the subcommand, as typed. */
  rest: string;
}

/**
 * A subcommand. Each is made by a factory taking the narrow dependencies it uses (e.g.
 * `subscribeCommand(deps: SubscribeDeps)`); `run` sees only the request.
 */
export interface Subcommand {
  name: string;
  /** Grammar shown by `help`, e.g. "subscribe <group> [filters]". */
  usage: string;
  summary: string;
  /** Changes configuration: refused to non-admins when ADMIN_USER_IDS is set. */
  mutates: boolean;
  run(ctx: CommandContext): Promise<void>;
}
