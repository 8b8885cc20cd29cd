import { WebClient } from "@slack/web-api";

/**
 * Who may connect a workspace: ADMIN_USER_IDS when the deployment sets it, else Slack's own
 * workspace admins and owners (users.info with the workspace's bot token).
 */
export function workspaceAdmins(o: {
  adminUserIds: readonly string[];
  apiUrl: string;
  botToken: (workspaceId: string) => Promise<string | undefined>;
}): (workspaceId: string, userId: string) => Promise<boolean> {
  return async (workspaceId, userId) => {
    if (o.adminUserIds.length > 0) return o.adminUserIds.includes(userId);
    const token = await o.botToken(workspaceId);
    if (!token) return false;
    // A one-off read on a button press: no retries, the person can press again.
    const client = new WebClient(token, { slackApiUrl: o.apiUrl, retryConfig: { retries: 0 } });
    const r = await client.users.info({ user: userId });
    return r.user?.is_admin === true || r.user?.is_owner === true || r.user?.is_primary_owner === true;
  };
}
