import { WebClient } from "@slack/web-api";
import type { Config } from "../config.js";
import { keyId } from "../workspaces/encryption.js";
import { oneLine, type CheckResult } from "./result.js";

/** Slack's answers to a made-up code: the code is wrong, so the client id and secret were right. */
const CLIENT_OK = new Set(["invalid_code", "invalid_grant_type", "code_already_used"]);
const CLIENT_BAD = new Set(["invalid_client_id", "bad_client_secret", "invalid_client"]);

/** The install and redirect URLs a public base implies. */
export function oauthUrls(publicUrl: string): { install: string; redirect: string } {
  const base = publicUrl.replace(/\/+$/, "");
  return { install: `${base}/slack/install`, redirect: `${base}/slack/oauth_redirect` };
}

/** PUBLIC_URL: set and https, since Slack sends people back to `<PUBLIC_URL>/slack/oauth_redirect`. */
export function checkPublicUrl(publicUrl: string | undefined): CheckResult {
  const name = "OAuth redirect";
  if (!publicUrl) {
    return {
      status: "fail",
      name,
      text: "PUBLIC_URL is not set: set it to this app's public https address (https://relay.example.com); Slack sends installers back to <PUBLIC_URL>/slack/oauth_redirect",
    };
  }
  const { install, redirect } = oauthUrls(publicUrl);
  if (!publicUrl.startsWith("https://")) {
    return {
      status: "fail",
      name,
      text: `PUBLIC_URL is ${oneLine(publicUrl, 120)}: Slack accepts only https redirect URLs; put the app behind https and set PUBLIC_URL to that address`,
    };
  }
  return {
    status: "ok",
    name,
    text: `add ${redirect} under OAuth & Permissions > Redirect URLs in the Slack app; people install from ${install}`,
  };
}

/** ENCRYPTION_KEY decoded to 32 bytes (config.ts refuses anything else); names the key by its id only. */
export function checkEncryptionKey(mw: NonNullable<Config["multiWorkspace"]>): CheckResult {
  const older = mw.previousEncryptionKeys.length;
  return {
    status: "ok",
    name: "Encryption key",
    text: `ENCRYPTION_KEY is a 32-byte key (id ${keyId(mw.encryptionKey)})${
      older > 0
        ? `; rotating: ${older} older key${older === 1 ? "" : "s"} still open${older === 1 ? "s" : ""} stored values, remove ${older === 1 ? "it" : "them"} once every workspace has been active`
        : ""
    }`,
  };
}

/**
 * SLACK_CLIENT_ID and SLACK_CLIENT_SECRET, checked with Slack itself: oauth.v2.access with a
 * made-up code answers `invalid_code` only when the client id and secret are right.
 */
export async function checkOAuthClient(config: Config, timeoutMs = 5_000): Promise<CheckResult> {
  const name = "Slack OAuth client";
  const mw = config.multiWorkspace;
  if (!mw) return { status: "skip", name, text: "single-workspace mode" };
  const client = new WebClient(undefined, {
    slackApiUrl: config.slack.apiUrl,
    retryConfig: { retries: 0 },
    timeout: timeoutMs,
  });
  try {
    await client.oauth.v2.access({
      client_id: mw.clientId,
      client_secret: mw.clientSecret,
      code: "doctor-check-not-a-real-code",
    });
    return { status: "warn", name, text: "Slack accepted a made-up code: is SLACK_API_URL really Slack?" };
  } catch (err) {
    const code = (err as { data?: { error?: unknown } }).data?.error;
    if (typeof code === "string" && CLIENT_OK.has(code)) {
      return {
        status: "ok",
        name,
        text: `Slack knows SLACK_CLIENT_ID ${oneLine(mw.clientId, 40)} and its secret`,
      };
    }
    if (typeof code === "string" && CLIENT_BAD.has(code)) {
      return {
        status: "fail",
        name,
        text: `Slack refused the client (${code}): copy SLACK_CLIENT_ID and SLACK_CLIENT_SECRET from the Slack app's Basic Information page`,
      };
    }
    return {
      status: "fail",
      name,
      text: `cannot check the client with Slack at ${config.slack.apiUrl} (${oneLine(typeof code === "string" ? code : err instanceof Error ? err.message : String(err), 80)}): check the network, or SLACK_API_URL if you set it`,
    };
  }
}
