import type {
  BlockAction,
  ButtonAction,
  Middleware,
  SlackActionMiddlewareArgs,
  StaticSelectAction,
} from "@slack/bolt";
import type { SlackEventMiddlewareArgs } from "@slack/bolt";

/** A Bolt listener for a button click. */
export type ButtonListener = Middleware<SlackActionMiddlewareArgs<BlockAction<ButtonAction>>>;

/** A Bolt listener for an option chosen in a static select. */
export type SelectListener = Middleware<SlackActionMiddlewareArgs<BlockAction<StaticSelectAction>>>;

/** A Bolt listener for the Home tab being opened. */
export type HomeOpenedListener = Middleware<SlackEventMiddlewareArgs<"app_home_opened">>;
