import { afterAll, afterEach, beforeAll } from "vitest";
import { silentLogger, type Logger } from "../../src/log.js";
import { createMetrics, type Metrics } from "../../src/metrics.js";
import { createSlackApi, type SlackApi } from "../../src/slack/client.js";
import {
  startSlackStandIn,
  type SlackStandIn,
  type SlackStandInOptions,
} from "../../dev/slack-standin/server.js";

/** A bot token the stand-in accepts (any xoxb- token is accepted unless one is pinned). */
export const TEST_BOT_TOKEN = "xoxb-1111111111-2222222222222-standinTestToken00000000";

/**
 * One stand-in Slack for a test file: started before all tests, reset after each, closed at
 * the end. Read `.current` inside tests.
 */
export function useSlackStandIn(opts: SlackStandInOptions = {}): { readonly current: SlackStandIn } {
  let standIn: SlackStandIn | undefined;
  beforeAll(async () => {
    standIn = await startSlackStandIn(opts);
  });
  afterEach(() => standIn?.reset());
  afterAll(async () => {
    await standIn?.close();
  });
  return {
    get current(): SlackStandIn {
      if (!standIn) throw new Error("the Slack stand-in is not started (use it inside a test)");
      return standIn;
    },
  };
}

/** The app's Slack wrapper pointed at a stand-in, with its own metrics registry. */
export function slackApiFor(
  standIn: SlackStandIn,
  o: { metrics?: Metrics; logger?: Logger; timeoutMs?: number; token?: string } = {},
): { api: SlackApi; metrics: Metrics } {
  const metrics = o.metrics ?? createMetrics();
  const api = createSlackApi({
    token: o.token ?? TEST_BOT_TOKEN,
    apiUrl: standIn.url,
    logger: o.logger ?? silentLogger,
    metrics,
    timeoutMs: o.timeoutMs ?? 5_000,
  });
  return { api, metrics };
}

/** The value of insight_relay_slack_api_calls_total{method, outcome}, read from the registry. */
export async function slackCallCount(metrics: Metrics, method: string, outcome: string): Promise<number> {
  const all = await metrics.registry.getMetricsAsJSON();
  const counter = all.find((m) => m.name === "insight_relay_slack_api_calls_total");
  const values = (counter?.values ?? []) as { value: number; labels: Record<string, string | number> }[];
  return values.find((v) => v.labels.method === method && v.labels.outcome === outcome)?.value ?? 0;
}

/** A block_actions payload shaped like Slack's, for interactionBody(). */
export function blockActionsPayload(o: {
  actionId: string;
  value?: string;
  blockId?: string;
  userId?: string;
  channelId?: string;
  messageTs?: string;
  responseUrl?: string;
  triggerId?: string;
  /** A users_select choice instead of a button press (as the card's Assign menu sends it). */
  selectedUser?: string;
  /** A message the action came from in a channel (not an ephemeral reply). */
  inChannel?: boolean;
}): Record<string, unknown> {
  const channel = o.channelId ?? "C0TESTCHAN";
  const user = o.userId ?? "U0TESTUSER";
  return {
    type: "block_actions",
    user: { id: user, username: "community.manager", name: "community.manager", team_id: "T0STANDIN" },
    api_app_id: "A0STANDIN",
    token: "legacy-verification-token-unused",
    container: {
      type: "message",
      message_ts: o.messageTs ?? "1732190000.000100",
      channel_id: channel,
      is_ephemeral: o.inChannel !== true,
    },
    trigger_id: o.triggerId ?? "7012345678901.1234567890123.0123456789abcdef0123456789abcdef",
    team: { id: "T0STANDIN", domain: "insight-relay-test" },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channel, name: "community-insights" },
    state: { values: {} },
    response_url:
      o.responseUrl ?? "https://hooks.slack.com/actions/T0STANDIN/7012345678901/abcDEF123ghiJKL456mno",
    actions: [
      o.selectedUser !== undefined
        ? {
            type: "users_select",
            action_id: o.actionId,
            block_id: o.blockId ?? "actions",
            selected_user: o.selectedUser,
            initial_user: undefined,
            action_ts: "1732190001.123456",
          }
        : {
            type: "button",
            action_id: o.actionId,
            block_id: o.blockId ?? "actions",
            text: { type: "plain_text", text: "Button", emoji: true },
            value: o.value ?? "",
            action_ts: "1732190001.123456",
          },
    ],
  };
}
