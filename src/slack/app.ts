import { App, ExpressReceiver, type ExpressReceiverOptions } from "@slack/bolt";
import express, { type Application, type Router } from "express";
import type { Logger } from "../log.js";
import { workspaceIdOf } from "../workspaces/installation-store.js";
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
  commands: CommandRouter;
  /** Mounted ahead of Bolt's route: health, metrics, the admin page. */
  routes: Router[];
  /**
   * Multi-workspace mode: runs each request's listeners as work of its workspace (team id, or
   * enterprise id for org-wide installs); false when that workspace is not installed.
   */
  enterWorkspace?: (workspaceId: string, next: () => Promise<void>) => Promise<boolean>;
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

  const enter = deps.enterWorkspace;
  if (enter) {
    app.use(async ({ context, next, logger: boltLogger }) => {
      const id = workspaceIdOf(context);
      if (!id || !(await enter(id, next))) boltLogger.debug("request of a workspace that is not installed");
    });
  }

  app.command("/insight", async ({ ack, command, respond }) => {
    await ack();
    void deps.commands
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
