/*
 * The pages a person sees in the browser around "Add to Slack". Pure: text in, HTML out;
 * every dynamic value is escaped.
 */

export type InstallFailure = "denied" | "bad_state" | "expired_state" | "failed";

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Insight Relay</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1d1c1d}
h1{font-size:1.5rem}a.button{display:inline-block;background:#4a154b;color:#fff;padding:.5rem 1rem;border-radius:4px;text-decoration:none}
ol li{margin:.25rem 0}</style></head>
<body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}

/** The install page: one "Add to Slack" link to Slack's authorize URL. */
export function renderInstallPage(authorizeUrl: string): string {
  return page(
    "Add Insight Relay to Slack",
    `<p>Insight Relay posts digests of your community's chat threads into Slack channels.</p>
<p><a class="button" href="${escapeHtml(authorizeUrl)}">Add to Slack</a></p>`,
  );
}

/** After a successful install: what to do next, in Slack. */
export function renderInstallSuccess(o: { workspaceName: string; appHomeUrl: string | undefined }): string {
  const home = o.appHomeUrl
    ? `<a href="${escapeHtml(o.appHomeUrl)}">Open Insight Relay in Slack</a>`
    : "In Slack, open <b>Insight Relay</b> under Apps";
  return page(
    `Insight Relay is installed in ${o.workspaceName}`,
    `<p>Next steps:</p>
<ol>
<li>${home} and go to its <b>Home</b> tab.</li>
<li>A workspace admin presses <b>Connect</b> and pastes the Insight Service API key.</li>
<li>The Home tab then shows this workspace's webhook URL: add it in the Insight Service dashboard.</li>
<li>In a channel, run <code>/insight groups</code> and subscribe to a chat group.</li>
</ol>`,
  );
}

const FAILURES: Record<InstallFailure, { title: string; text: string }> = {
  denied: {
    title: "Installation cancelled",
    text: "Insight Relay was not added, because the installation was cancelled in Slack. You can start again whenever you like.",
  },
  bad_state: {
    title: "This install link is not valid",
    text: "The link was already used or did not come from this app. Start the installation again from the Add to Slack page.",
  },
  expired_state: {
    title: "This install link has expired",
    text: "Install links work for 10 minutes. Start the installation again from the Add to Slack page.",
  },
  failed: {
    title: "Installation failed",
    text: "Slack did not complete the installation. Nothing was installed; please try again in a minute.",
  },
};

export function renderInstallFailure(kind: InstallFailure, installPath: string): string {
  const f = FAILURES[kind];
  return page(
    f.title,
    `<p>${escapeHtml(f.text)}</p>
<p><a class="button" href="${escapeHtml(installPath)}">Start again</a></p>`,
  );
}
