import type { KnownBlock } from "../render/known-blocks.js";

/** What handlers send back through the action's response_url (Bolt's `respond`). */
export interface ActionReply {
  text: string;
  blocks?: KnownBlock[];
  replace_original?: boolean;
  response_type?: "ephemeral" | "in_channel";
}
export type Respond = (reply: ActionReply) => Promise<unknown>;

export const STALE_BUTTON =
  "This button no longer works (the message is too old or was changed). Run the command again.";
