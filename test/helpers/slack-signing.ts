import { createHmac } from "node:crypto";
import { request } from "undici";

/**
 * The headers Slack sends with every request to the app: `v0=` + hex HMAC-SHA256 of
 * `v0:{timestamp}:{raw body}` keyed with the signing secret, and the timestamp in seconds.
 */
export function signSlackRequest(
  signingSecret: string,
  rawBody: string,
  timestampSeconds: number = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const ts = String(timestampSeconds);
  const digest = createHmac("sha256", signingSecret).update(`v0:${ts}:${rawBody}`).digest("hex");
  return { "x-slack-signature": `v0=${digest}`, "x-slack-request-timestamp": ts };
}

export interface SlashCommandFields {
  text: string;
  command?: "/insight";
  channel_id?: string;
  channel_name?: string;
  user_id?: string;
  user_name?: string;
  team_id?: string;
  team_domain?: string;
  response_url?: string;
  trigger_id?: string;
}

/** A slash command body as Slack sends it (form-encoded, Slack's field order). */
export function slashCommandBody(fields: SlashCommandFields): string {
  const team = fields.team_id ?? "T0STANDIN";
  return new URLSearchParams({
    token: "legacy-verification-token-unused",
    team_id: team,
    team_domain: fields.team_domain ?? "insight-relay-test",
    channel_id: fields.channel_id ?? "C0TESTCHAN",
    channel_name: fields.channel_name ?? "community-insights",
    user_id: fields.user_id ?? "U0TESTUSER",
    user_name: fields.user_name ?? "community.manager",
    command: fields.command ?? "/insight",
    text: fields.text,
    api_app_id: "A0STANDIN",
    is_enterprise_install: "false",
    response_url:
      fields.response_url ?? `https://hooks.slack.com/commands/${team}/7012345678901/abcDEF123ghiJKL456mno`,
    trigger_id: fields.trigger_id ?? "7012345678901.1234567890123.0123456789abcdef0123456789abcdef",
  }).toString();
}

/** An interactivity body as Slack sends it: one form field `payload` holding the JSON. */
export function interactionBody(payload: object): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/**
 * POSTs `body` signed with `secret` (override `timestamp` or the whole `signature` to test
 * rejections) and returns the status and the body text.
 */
export async function postSigned(
  url: string,
  secret: string,
  body: string,
  contentType = "application/x-www-form-urlencoded",
  o: { timestamp?: number; signature?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, string> }> {
  const signed = signSlackRequest(secret, body, o.timestamp);
  if (o.signature !== undefined) signed["x-slack-signature"] = o.signature;
  const res = await request(url, {
    method: "POST",
    body,
    headers: { "content-type": contentType, ...signed },
  });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  return { status: res.statusCode, body: await res.body.text(), headers };
}
