import type { BlockAction, ButtonAction, Middleware, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { SlackEventMiddlewareArgs } from "@slack/bolt";

/** A Bolt listener for a button click. */
export type ButtonListener = Middleware<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>;

/** A Bolt listener for the Home tab being opened. */
export type HomeOpenedListener = Middleware<SlackEventMiddlewareArgs<"app_home_opened">>;
