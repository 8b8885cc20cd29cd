import type { SlackApi } from "./client.js";
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

/** What `users.info` says of a person's role in the workspace. */
interface WorkspaceRole {
  user?: { is_admin?: boolean; is_owner?: boolean; is_primary_owner?: boolean };
}

/**
 * Whether someone sees operator detail (queue names, incident keys, Slack's error codes): the
 * app's admins, that is ADMIN_USER_IDS when it is set, else the workspace's own admins and
 * owners as Slack says (`users.info`). When Slack cannot say, the plain words: they hide
 * nothing a person needs.
 */
export async function seesOperatorDetail(
  userId: string,
  o: { adminUserIds: readonly string[]; slack: Pick<SlackApi, "call"> },
): Promise<boolean> {
  if (o.adminUserIds.length > 0) return o.adminUserIds.includes(userId);
  try {
    const r = await o.slack.call<WorkspaceRole>("users.info", { user: userId });
    return r.user?.is_admin === true || r.user?.is_owner === true || r.user?.is_primary_owner === true;
  } catch {
    return false;
  }
}
