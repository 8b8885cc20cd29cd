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

/** At most this many admins are told of one incident: a DM each, through the throttled queue. */
export const MAX_ADMINS_TOLD = 25;

type Member = {
  id?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
};

/** A workspace's admins from users.list members, pure: people only, ADMIN_USER_IDS when set. */
export function pickAdmins(members: readonly Member[], adminUserIds: readonly string[]): string[] {
  const out: string[] = [];
  for (const m of members) {
    if (!m.id || m.deleted || m.is_bot || m.id === "USLACKBOT") continue;
    const admin =
      adminUserIds.length > 0
        ? adminUserIds.includes(m.id)
        : m.is_admin === true || m.is_owner === true || m.is_primary_owner === true;
    if (admin && !out.includes(m.id)) out.push(m.id);
  }
  return out.slice(0, MAX_ADMINS_TOLD);
}

/**
 * Who to tell about the workspace's Insight connection: its admins as users.list sees them
 * (every page), or the ADMIN_USER_IDS among its members when set (an id belongs to one workspace,
 * so another workspace's admins are never DMed with this one's token).
 */
export function listWorkspaceAdmins(o: {
  adminUserIds: readonly string[];
  apiUrl: string;
  botToken: (workspaceId: string) => Promise<string | undefined>;
}): (workspaceId: string) => Promise<string[]> {
  return async (workspaceId) => {
    const token = await o.botToken(workspaceId);
    if (!token) return [];
    // Rare (once per incident) and best effort: no retry loop of its own.
    const client = new WebClient(token, { slackApiUrl: o.apiUrl, retryConfig: { retries: 0 } });
    const members: Member[] = [];
    let cursor: string | undefined;
    // 200 a page as Slack recommends; a workspace of 10,000 people is 50 calls, once.
    for (let page = 0; page < 50; page++) {
      const r = await client.users.list({ limit: 200, ...(cursor ? { cursor } : {}) });
      members.push(...(r.members ?? []));
      cursor = r.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return pickAdmins(members, o.adminUserIds);
  };
}
