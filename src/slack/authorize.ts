import { EMOJI } from "./render/wording.js";

/**
 * Who may change configuration (subscriptions, schedules, resuming). The router applies the
 * same rule to `mutates` subcommands; buttons that change configuration call this, since a
 * button can be pressed by anyone who sees it.
 */
export function mayChangeConfig(userId: string, adminUserIds: readonly string[]): boolean {
  return adminUserIds.length === 0 || adminUserIds.includes(userId);
}

export const ADMIN_ONLY_REFUSAL = `${EMOJI.notAllowed} Only the app's admins can change subscriptions or schedules. Reading commands (\`threads\`, \`search\`, \`list\`, \`status\`) are open to everyone.`;
