import { createHmac, randomBytes } from "node:crypto";
import { request } from "undici";

/**
 * Signs a request body as Slack does: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` keyed
 * with the signing secret, the timestamp in seconds.
 */
export function slackSignature(secret: string, body: string, nowSeconds: number): Record<string, string> {
  const ts = String(nowSeconds);
  const digest = createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex");
  return { "x-slack-signature": `v0=${digest}`, "x-slack-request-timestamp": ts };
}

export interface SlashCommand {
  /** The workspace it comes from; default the stand-in's one workspace. */
  teamId?: string;
  text: string;
  channelId: string;
  userId: string;
  responseUrl: string;
}

/** POSTs `/insight <text>` to the app the way Slack would; resolves with the ack's status. */
export async function sendSlashCommand(
  eventsUrl: string,
  signingSecret: string,
  c: SlashCommand,
): Promise<number> {
  const body = new URLSearchParams({
    token: "unused-legacy-token",
    team_id: c.teamId ?? "T0STANDIN",
    team_domain: "insight-relay-demo",
    channel_id: c.channelId,
    channel_name: "community-insights",
    user_id: c.userId,
    user_name: "community.manager",
    command: "/insight",
    text: c.text,
    api_app_id: "A0DEMO",
    response_url: c.responseUrl,
    trigger_id: "7012345678901.1234567890123.demo0000000000000000000000000000",
  }).toString();
  return (await postSigned(eventsUrl, signingSecret, body, "application/x-www-form-urlencoded")).status;
}

/** POSTs a body to the app signed like Slack; resolves with the HTTP answer. */
export async function postSigned(
  eventsUrl: string,
  signingSecret: string,
  body: string,
  contentType: string,
): Promise<{ status: number; body: string }> {
  const res = await request(eventsUrl, {
    method: "POST",
    body,
    headers: {
      "content-type": contentType,
      ...slackSignature(signingSecret, body, Math.floor(Date.now() / 1000)),
    },
  });
  return { status: res.statusCode, body: await res.body.text() };
}

/** An interaction (button press, view submission) as Slack sends it: `payload=<json>` form-encoded. */
export function sendInteraction(
  eventsUrl: string,
  signingSecret: string,
  payload: object,
): Promise<{ status: number; body: string }> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return postSigned(eventsUrl, signingSecret, body, "application/x-www-form-urlencoded");
}

/** An Events API callback (app_home_opened, app_uninstalled) as Slack sends it. */
export function sendEvent(
  eventsUrl: string,
  signingSecret: string,
  teamId: string,
  event: Record<string, unknown>,
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    type: "event_callback",
    team_id: teamId,
    api_app_id: "A0STANDIN",
    event,
    event_id: `Ev0${randomBytes(6).toString("hex").toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
  });
  return postSigned(eventsUrl, signingSecret, body, "application/json");
}
