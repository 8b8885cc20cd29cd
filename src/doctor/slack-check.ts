import type { Config } from "../config.js";
import { silentLogger } from "../log.js";
import { createMetrics } from "../metrics.js";
import { createSlackApi } from "../slack/client.js";
import { describeSlackError, isSlackCallError } from "../slack/errors.js";
import { oneLine, type CheckResult } from "./result.js";

const NAME = "Slack token";
const TOKEN_PROBLEMS = new Set([
  "invalid_auth",
  "not_authed",
  "token_revoked",
  "token_expired",
  "account_inactive",
]);

/** auth.test with the bot token: who the bot is and in which workspace. */
export async function checkSlack(config: Config, timeoutMs = 5_000): Promise<CheckResult[]> {
  const slack = createSlackApi({
    token: config.slack.botToken,
    apiUrl: config.slack.apiUrl,
    logger: silentLogger,
    metrics: createMetrics(),
    timeoutMs,
  });
  try {
    const me = await slack.authTest();
    const user = typeof me.user === "string" ? `@${oneLine(me.user, 60)} ` : "";
    return [
      {
        status: "ok",
        name: NAME,
        text: `Slack accepts it: bot ${user}(${me.user_id}) in workspace ${oneLine(me.team, 80)} (${me.team_id}, ${oneLine(me.url, 100)})`,
      },
    ];
  } catch (err) {
    const code = isSlackCallError(err) ? err.code : "unexpected_error";
    let text: string;
    if (TOKEN_PROBLEMS.has(code)) {
      text = `Slack rejected SLACK_BOT_TOKEN (${code}): install the app to your workspace again and copy the Bot User OAuth Token (xoxb-...) into .env`;
    } else if (code === "request_error" || code === "timeout" || code.startsWith("http_")) {
      text = `cannot reach Slack at ${config.slack.apiUrl} (${code}): check the network, or SLACK_API_URL if you set it`;
    } else {
      text = `auth.test failed (${code}): ${describeSlackError(code)}`;
    }
    return [{ status: "fail", name: NAME, text }];
  }
}
