import { randomBytes } from "node:crypto";
import type { MethodResult, Obj } from "./methods.js";

/*
 * The stand-in's many workspaces: "Add to Slack" grants (a code per install), per-workspace
 * bot tokens (with rotation when asked), users who are admins, auth.revoke. A token the
 * registry issued answers as its own workspace; any other `xoxb-` token is the one default
 * workspace, as before, so single-workspace tests are unchanged.
 */

export interface StandInWorkspace {
  /** Team id (T...); for an org-wide install, the enterprise id (E...) is the workspace. */
  teamId?: string;
  teamName?: string;
  enterpriseId?: string;
  enterpriseName?: string;
  /** Org-wide install on Enterprise Grid: `team` is null in oauth.v2.access. */
  isEnterpriseInstall?: boolean;
  /** Who installs; `users.info` says they are an admin. */
  installerId?: string;
  /** Users `users.info` reports as admins (`is_admin`), besides the installer. */
  adminIds?: string[];
  /** Members who are not admins (users.list lists them with the admins). */
  memberIds?: string[];
  /** Token rotation on: oauth.v2.access returns a refresh token and `expires_in`. */
  rotation?: { expiresInSeconds: number };
}

interface IssuedToken {
  ws: StandInWorkspace;
  /** Seconds since epoch; rotation only. */
  expiresAt?: number;
}

export interface OAuthRegistry {
  /** A code the app exchanges at oauth.v2.access (what Slack puts on the redirect). */
  grant(ws: StandInWorkspace): string;
  /** Makes a workspace known to the authorize page (its name, installer, admins). */
  declare(ws: StandInWorkspace): void;
  /** Declared workspaces, in the order declared. */
  declared(): StandInWorkspace[];
  /** The workspace a token belongs to, when the registry issued it. */
  workspaceOf(token: string): StandInWorkspace | undefined;
  /** Error for an issued token that no longer works, else undefined. */
  tokenError(token: string, nowSec: number): string | undefined;
  /** Bot tokens issued to that team or enterprise, newest last (tests read them). */
  tokensOf(workspaceId: string): string[];
  isAdmin(user: string): boolean;
  /** The people of that workspace (installer, admins, members), in the order they were granted. */
  usersOf(workspaceId: string): { id: string; admin: boolean }[];
  /** oauth.v2.access: a code, or `grant_type=refresh_token`. */
  access(args: Obj, basic: { id: string; secret: string } | undefined, nowSec: number): MethodResult;
  /** auth.revoke with that token. */
  revoke(token: string): MethodResult;
  reset(): void;
}

const idOf = (ws: StandInWorkspace) => (ws.isEnterpriseInstall ? ws.enterpriseId : ws.teamId) ?? "";

export function createOAuthRegistry(client?: { id: string; secret: string }): OAuthRegistry {
  const codes = new Map<string, StandInWorkspace>();
  const tokens = new Map<string, IssuedToken>();
  const refresh = new Map<string, StandInWorkspace>();
  const revoked = new Set<string>();
  const admins = new Set<string>();
  const known = new Map<string, StandInWorkspace>();
  const people = new Map<string, Map<string, boolean>>();
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);

  const issue = (ws: StandInWorkspace, nowSec: number): Obj => {
    const token = `xoxb-${idOf(ws)}-${randomBytes(8).toString("hex")}`;
    const expiresAt = ws.rotation ? nowSec + ws.rotation.expiresInSeconds : undefined;
    tokens.set(token, { ws, ...(expiresAt ? { expiresAt } : {}) });
    if (!ws.rotation) return { access_token: token };
    const refreshToken = `xoxe-1-${randomBytes(8).toString("hex")}`;
    refresh.set(refreshToken, ws);
    return { access_token: token, refresh_token: refreshToken, expires_in: ws.rotation.expiresInSeconds };
  };

  return {
    grant(ws) {
      const code = `code-${randomBytes(8).toString("hex")}`;
      codes.set(code, ws);
      for (const u of [ws.installerId, ...(ws.adminIds ?? [])]) if (u) admins.add(u);
      const team = people.get(idOf(ws)) ?? new Map<string, boolean>();
      for (const u of [ws.installerId, ...(ws.adminIds ?? [])]) if (u) team.set(u, true);
      for (const u of ws.memberIds ?? []) if (!team.has(u)) team.set(u, false);
      people.set(idOf(ws), team);
      return code;
    },
    declare(ws) {
      known.set(idOf(ws), ws);
    },
    declared: () => [...known.values()],
    workspaceOf: (token) => tokens.get(token)?.ws,
    tokenError(token, nowSec) {
      if (revoked.has(token)) return "token_revoked";
      const t = tokens.get(token);
      if (t?.expiresAt !== undefined && t.expiresAt <= nowSec) return "token_expired";
      return undefined;
    },
    tokensOf: (id) => [...tokens.entries()].filter(([, t]) => idOf(t.ws) === id).map(([k]) => k),
    isAdmin: (user) => admins.has(user),
    usersOf: (id) =>
      [...(people.get(id) ?? new Map<string, boolean>())].map(([u, admin]) => ({ id: u, admin })),
    access(args, basic, nowSec) {
      const id = str(args.client_id) ?? basic?.id;
      const secret = str(args.client_secret) ?? basic?.secret;
      if (client && (id !== client.id || secret !== client.secret))
        return { ok: false, error: "invalid_client_id" };
      if (args.grant_type === "refresh_token") {
        const rt = str(args.refresh_token);
        const ws = rt ? refresh.get(rt) : undefined;
        if (!rt || !ws) return { ok: false, error: "invalid_refresh_token" };
        refresh.delete(rt); // single use, as Slack's
        return { ok: true, token_type: "bot", ...issue(ws, nowSec) };
      }
      const code = str(args.code);
      const ws = code ? codes.get(code) : undefined;
      if (!code || !ws) return { ok: false, error: "invalid_code" };
      codes.delete(code);
      const bot = issue(ws, nowSec);
      return {
        ok: true,
        app_id: "A0STANDIN",
        token_type: "bot",
        scope: "commands,chat:write,users:read",
        bot_user_id: "U0BOT",
        ...bot,
        team: ws.isEnterpriseInstall ? null : { id: ws.teamId, name: ws.teamName ?? ws.teamId },
        enterprise: ws.enterpriseId
          ? { id: ws.enterpriseId, name: ws.enterpriseName ?? ws.enterpriseId }
          : null,
        is_enterprise_install: ws.isEnterpriseInstall === true,
        authed_user: { id: ws.installerId ?? "U0INSTALLER" },
      };
    },
    revoke(token) {
      revoked.add(token);
      return { ok: true, revoked: true };
    },
    reset() {
      codes.clear();
      tokens.clear();
      refresh.clear();
      revoked.clear();
      admins.clear();
      known.clear();
      people.clear();
    },
  };
}
