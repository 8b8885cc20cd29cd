import { App, ExpressReceiver } from "@slack/bolt";
import express, { type Application, type Router } from "express";
import type { AppServices } from "../runtime.js";
import { secretsOf } from "../config.js";
import { slackSdkLogger } from "./client.js";
import type { CommandRouter } from "./commands/router.js";

export const SLACK_EVENTS_PATH = "/slack/events";

export interface SlackAppParts {
  app: App;
  receiver: ExpressReceiver;
  http: Application;
}

/**
 * Bolt on ExpressReceiver, with the app's own routes mounted on the same Express app ahead
 * of Bolt's: one port serves Slack (`/slack/events`), the Insight webhooks, health, metrics
 * and the admin page.
 */
export function createSlackApp(opts: {
  services: AppServices;
  commands: CommandRouter;
  routes: Router[];
  /** Registers interactivity (buttons, modals) and events; added by the modules that own them. */
  extend?: (app: App) => void;
}): SlackAppParts {
  const { services } = opts;
  const { config } = services;
  const http = express();
  http.disable("x-powered-by");
  for (const r of opts.routes) http.use(r);

  const logger = slackSdkLogger(services.logger, secretsOf(config));
  const receiver = new ExpressReceiver({
    signingSecret: config.slack.signingSecret,
    endpoints: SLACK_EVENTS_PATH,
    app: http,
    logger,
    // Ack first, work after: Slack's 3-second deadline never waits on our I/O.
    processBeforeResponse: false,
  });
  const app = new App({
    receiver,
    token: config.slack.botToken,
    logger,
    // Bolt's client answers interactive requests; it may retry a little, but never for long.
    clientOptions: {
      slackApiUrl: config.slack.apiUrl,
      retryConfig: { retries: 1 },
      rejectRateLimitedCalls: true,
    },
    tokenVerificationEnabled: false,
  });

  app.command("/insight", async ({ ack, command, respond }) => {
    await ack();
    void opts.commands
      .dispatch(
        command.text ?? "",
        {
          userId: command.user_id,
          channelId: command.channel_id,
          teamId: command.team_id,
          triggerId: command.trigger_id,
          respond: async (reply) => {
            await respond({ response_type: "ephemeral", ...reply });
          },
          services,
        },
        config.adminUserIds,
      )
      .catch((err: unknown) => {
        services.logger.error(
          { err: err instanceof Error ? err.message : String(err) },
          "slash command failed",
        );
      });
  });

  opts.extend?.(app);
  app.error(async (err) => {
    services.logger.error({ err: err.message, code: err.code }, "Bolt error");
  });
  return { app, receiver, http };
}
