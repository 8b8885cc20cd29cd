import express, { type Router } from "express";
import { basicAuth } from "./basic-auth.js";

export const WORKSPACES_PATH = "/admin/workspaces";

/** One installed workspace as the operator sees it: no token, key, secret or webhook URL. */
export interface WorkspaceRow {
  id: string;
  name: string;
  enterprise: boolean;
  installedAt: string;
  connected: boolean;
  /** Since when the Insight Service refuses its key (401), while it does. */
  keyRejectedAt: string | undefined;
  /** Undefined when its state could not be read. */
  subscriptions: number | undefined;
  /** Its jobs waiting in every queue (ready to run). */
  waitingJobs: number;
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/** The page, pure: a table of workspaces, busiest first. Names come from Slack: escaped. */
export function renderWorkspacesPage(rows: readonly WorkspaceRow[], now: Date): string {
  const sorted = [...rows].sort((a, b) => b.waitingJobs - a.waitingJobs || a.id.localeCompare(b.id));
  const cell = (s: string) => `<td>${escapeHtml(s)}</td>`;
  const body = sorted
    .map((r) =>
      [
        "<tr>",
        cell(r.id),
        cell(r.name),
        cell(r.enterprise ? "org-wide" : "workspace"),
        cell(r.installedAt),
        cell(r.connected ? "connected" : "not connected"),
        cell(r.keyRejectedAt ? `refused since ${r.keyRejectedAt}` : r.connected ? "accepted" : ""),
        cell(r.subscriptions === undefined ? "unreadable" : String(r.subscriptions)),
        cell(String(r.waitingJobs)),
        "</tr>",
      ].join(""),
    )
    .join("\n");
  const refused = rows.filter((r) => r.keyRejectedAt).length;
  const n = rows.length;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Insight Relay: workspaces</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}</style>
</head><body>
<h1>Workspaces</h1>
<p>${n} workspace${n === 1 ? "" : "s"} installed; ${refused} with a refused Insight key. As of ${escapeHtml(now.toISOString())} (UTC). Queues: <a href="/admin/queues">/admin/queues</a>.</p>
<table><thead><tr><th>Id</th><th>Name</th><th>Install</th><th>Installed (UTC)</th><th>Insight Service</th><th>API key</th><th>Subscriptions</th><th>Waiting jobs</th></tr></thead>
<tbody>
${body}
</tbody></table>
</body></html>`;
}

/** GET /admin/workspaces (HTML) and /admin/workspaces.json, behind the admin page's basic auth. */
export function workspacesRouter(
  rows: () => Promise<WorkspaceRow[]>,
  password: string,
  now: () => Date = () => new Date(),
): Router {
  const router = express.Router();
  const auth = basicAuth(password);
  router.get(`${WORKSPACES_PATH}.json`, auth, async (_req, res) => {
    res.set("Cache-Control", "no-store").json({ workspaces: await rows() });
  });
  router.get(WORKSPACES_PATH, auth, async (_req, res) => {
    res
      .set("Cache-Control", "no-store")
      .type("html")
      .send(renderWorkspacesPage(await rows(), now()));
  });
  return router;
}
