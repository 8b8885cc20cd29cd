import type { ExpressReceiverOptions, Installation, InstallationStore, StateStore } from "@slack/bolt";
import type { ServerResponse } from "node:http";
import { INSTALL_SCOPES } from "./scopes.js";
import {
  renderInstallFailure,
  renderInstallPage,
  renderInstallSuccess,
  type InstallFailure,
} from "./pages.js";
import { StateError } from "./state-store.js";

export const INSTALL_PATH = "/slack/install";
export const OAUTH_REDIRECT_PATH = "/slack/oauth_redirect";

export interface OAuthDeps {
  clientId: string;
  clientSecret: string;
  /** SLACK_API_URL: oauth.v2.access goes there (the stand-in answers it in tests and the demo). */
  apiUrl: string;
  /** PUBLIC_URL: the redirect URL sent to Slack; unset, Slack uses the app's only configured one. */
  publicUrl: string | undefined;
  installationStore: InstallationStore;
  stateStore: StateStore;
  /** Told of each completed install (metrics, logs); never of tokens. */
  onInstalled?: (workspace: { id: string; name: string; enterprise: boolean }) => void;
  onFailed?: (kind: InstallFailure, err: Error) => void;
}

/** Which failure page an OAuth error gets. */
export function failureKind(err: Error & { code?: string }): InstallFailure {
  if (err instanceof StateError) return err.problem;
  if (err.code === "slack_oauth_installer_authorization_error") return "denied";
  if (err.code === "slack_oauth_invalid_state" || err.code === "slack_oauth_missing_state")
    return "bad_state";
  return "failed";
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-length": String(Buffer.byteLength(html)),
  });
  res.end(html);
}

/** Slack's authorize page lives beside its Web API (so a stand-in's does too). */
export function authorizeUrlFor(apiUrl: string): string {
  return new URL("../oauth/v2/authorize", apiUrl).toString();
}

/**
 * The OAuth half of the ExpressReceiver's options: Bolt's InstallProvider serves
 * /slack/install and /slack/oauth_redirect, with our signed single-use state, the encrypted
 * installation store, and our own success and failure pages.
 */
export function oauthReceiverOptions(d: OAuthDeps): Partial<ExpressReceiverOptions> {
  return {
    clientId: d.clientId,
    clientSecret: d.clientSecret,
    scopes: [...INSTALL_SCOPES],
    installationStore: d.installationStore,
    ...(d.publicUrl ? { redirectUri: `${d.publicUrl}${OAUTH_REDIRECT_PATH}` } : {}),
    installerOptions: {
      stateStore: d.stateStore,
      installPath: INSTALL_PATH,
      redirectUriPath: OAUTH_REDIRECT_PATH,
      authorizationUrl: authorizeUrlFor(d.apiUrl),
      renderHtmlForInstallPath: renderInstallPage,
      clientOptions: { slackApiUrl: d.apiUrl, retryConfig: { retries: 1 } },
      callbackOptions: {
        success: (installation: Installation, _options, _req, res) => {
          const id =
            (installation.isEnterpriseInstall ? installation.enterprise?.id : installation.team?.id) ?? "";
          const name =
            (installation.isEnterpriseInstall ? installation.enterprise?.name : installation.team?.name) ??
            id;
          d.onInstalled?.({ id, name, enterprise: installation.isEnterpriseInstall === true });
          const appHomeUrl =
            installation.appId && installation.team?.id
              ? `slack://app?team=${encodeURIComponent(installation.team.id)}&id=${encodeURIComponent(installation.appId)}&tab=home`
              : undefined;
          sendHtml(res, 200, renderInstallSuccess({ workspaceName: name, appHomeUrl }));
        },
        failure: (err, _options, _req, res) => {
          const kind = failureKind(err);
          d.onFailed?.(kind, err);
          sendHtml(res, kind === "failed" ? 502 : 400, renderInstallFailure(kind, INSTALL_PATH));
        },
      },
    },
  };
}
