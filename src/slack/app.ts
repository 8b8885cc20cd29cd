import { App, ExpressReceiver, type Context, type ExpressReceiverOptions } from "@slack/bolt";
import express, { type Application, type Router } from "express";
import type { Logger } from "../log.js";
import { slackSdkLogger } from "./client.js";
import type { CommandRouter } from "./commands/router.js";

export const SLACK_EVENTS_PATH = "/slack/events";

export interface SlackAppParts {
  app: App;
  receiver: ExpressReceiver;
  http: Application;
}

export interface SlackAppDeps {
  signingSecret: string;
  /** Single-workspace mode's token; unused when `oauth` is set (each workspace has its own). */
  botToken: string;
  /** Multi-workspace mode: Bolt's OAuth install routes and installation store (slack/install/). */
  oauth?: Partial<ExpressReceiverOptions>;
  apiUrl: string;
  logger: Logger;
  /** Scrubbed from the Bolt SDK's own log lines. */
  secrets: string[];
  /** The `/insight` subcommands of the request's workspace (resolved by `resolveWorkspace`). */
  commandsOf: (context: Context) => CommandRouter;
  /** Mounted ahead of Bolt's route: health, metrics, the admin page. */
  routes: Router[];
  /**
   * Resolves each request's workspace first (its team, or its org for org-wide installs; the one
   * workspace when there is one) and keeps it on Bolt's `context` for the listeners; false when
   * that workspace is not installed, and the request goes no further.
   */
  resolveWorkspace: (context: Context) => Promise<boolean>;
  /** Registers interactivity (buttons, modals) and events; added by the features that own them. */
  extend?: (app: App) => void;
}

/**
 * Bolt on ExpressReceiver, with the app's own routes mounted on the same Express app ahead of
 * Bolt's: Express serves Slack (`/slack/events`), health, metrics and the admin page. The
 * Insight webhooks never reach Express: the web role's server answers them first (webhooks/route.ts).
 */
export function createSlackApp(deps: SlackAppDeps): SlackAppParts {
  const http = express();
  http.disable("x-powered-by");
  for (const r of deps.routes) http.use(r);

  const logger = slackSdkLogger(deps.logger, deps.secrets);
  const receiver = new ExpressReceiver({
    ...deps.oauth,
    signingSecret: deps.signingSecret,
    endpoints: SLACK_EVENTS_PATH,
    app: http,
    logger,
    // Ack first, work after: Slack's 3-second deadline never waits on our I/O.
    processBeforeResponse: false,
  });
  const app = new App({
    receiver,
    // With OAuth, Bolt authorizes each request from the installation store instead.
    ...(deps.oauth ? {} : { token: deps.botToken }),
    logger,
    // Our listeners answer through response_url and the app's one Slack wrapper
    // (slack/client.ts), not Bolt's client; should Bolt call its own, it retries little.
    clientOptions: {
      slackApiUrl: deps.apiUrl,
      retryConfig: { retries: 1 },
      rejectRateLimitedCalls: true,
    },
    tokenVerificationEnabled: false,
  });

  app.use(async ({ context, next, logger: boltLogger }) => {
    if (await deps.resolveWorkspace(context)) await next();
    else boltLogger.debug("request of a workspace that is not installed");
  });

  app.command("/insight", async ({ ack, command, respond, context }) => {
    await ack();
    void deps
      .commandsOf(context)
      .dispatch(command.text ?? "", {
        userId: command.user_id,
        channelId: command.channel_id,
        teamId: command.team_id,
        triggerId: command.trigger_id,
        respond: async (reply) => {
          await respond({ response_type: "ephemeral", ...reply });
        },
      })
      .catch((err: unknown) => {
        deps.logger.error({ err }, "slash command failed");
      });
  });

  deps.extend?.(app);
  app.error(async (err) => {
    deps.logger.error({ err, code: err.code }, "Bolt error");
  });
  return { app, receiver, http };
}
