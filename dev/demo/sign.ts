import { createHmac } from "node:crypto";
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
    team_id: "T0STANDIN",
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
  const res = await request(eventsUrl, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...slackSignature(signingSecret, body, Math.floor(Date.now() / 1000)),
    },
  });
  await res.body.dump();
  return res.statusCode;
}
