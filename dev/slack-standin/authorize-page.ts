import type { OAuthRegistry, StandInWorkspace } from "./oauth.js";

/*
 * The stand-in's `GET /oauth/v2/authorize`: the page Slack shows a person who pressed "Add to
 * Slack". Slack asks which workspace and whether to allow; here `team` (a parameter Slack's own
 * page accepts) chooses the workspace, and the answer is at once the redirect back to the app
 * with a code for that workspace (or `error=access_denied` with `decision=deny`). Without
 * `team`, a small page lists the declared workspaces as links.
 */

export interface AuthorizeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

const page = (status: number, title: string, inner: string): AuthorizeAnswer => ({
  status,
  headers: { "content-type": "text/html; charset=utf-8" },
  body: `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${inner}</body></html>`,
});

const redirect = (to: URL): AuthorizeAnswer => ({
  status: 302,
  headers: { location: to.toString(), "content-type": "text/plain; charset=utf-8" },
  body: "",
});

/** Answers one authorize request; `client` set: only that client id is accepted. */
export function answerAuthorize(
  url: URL,
  oauth: OAuthRegistry,
  client: { id: string } | undefined,
): AuthorizeAnswer {
  const q = url.searchParams;
  const clientId = q.get("client_id") ?? "";
  if (!clientId || (client && clientId !== client.id)) {
    return page(400, "Invalid client_id", "<p>This app is not known to the stand-in Slack.</p>");
  }
  const back = q.get("redirect_uri");
  let target: URL;
  try {
    if (!back) throw new Error("no redirect_uri");
    target = new URL(back);
  } catch {
    return page(
      400,
      "No redirect URL",
      "<p>The stand-in needs <code>redirect_uri</code> on the authorize URL (set PUBLIC_URL on the app).</p>",
    );
  }
  const state = q.get("state");
  if (state !== null) target.searchParams.set("state", state);
  const team = q.get("team");
  if (q.get("decision") === "deny") {
    target.searchParams.set("error", "access_denied");
    return redirect(target);
  }
  if (!team) {
    const choose = (ws: StandInWorkspace) => {
      const id = ws.isEnterpriseInstall ? ws.enterpriseId : ws.teamId;
      const link = new URL(url);
      link.searchParams.set("team", id ?? "");
      return `<li><a href="${escapeHtml(link.pathname + link.search)}">${escapeHtml(ws.teamName ?? ws.enterpriseName ?? id ?? "")}</a></li>`;
    };
    const deny = new URL(url);
    deny.searchParams.set("decision", "deny");
    return page(
      200,
      "Install on which workspace?",
      `<ul>${oauth.declared().map(choose).join("")}</ul><p><a href="${escapeHtml(deny.pathname + deny.search)}">Cancel</a></p>`,
    );
  }
  const declared = oauth
    .declared()
    .find((ws) => (ws.isEnterpriseInstall ? ws.enterpriseId : ws.teamId) === team);
  const code = oauth.grant(declared ?? { teamId: team, teamName: team });
  target.searchParams.set("code", code);
  return redirect(target);
}
