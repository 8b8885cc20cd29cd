import { RANGE_HELP } from "../../domain/ranges.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import type { Subcommand } from "./types.js";

/** Usage of every subcommand, in the order given. */
export function helpText(subcommands: readonly Subcommand[]): string {
  // `<group>` is a control sequence in mrkdwn (even inside backticks): usages are escaped.
  const lines = subcommands.map(
    (s) => `• \`/insight ${escapeMrkdwn(s.usage)}\` — ${escapeAngles(s.summary)}`,
  );
  return [
    "*Insight Relay* brings your community's chat groups into Slack. Replies are visible only to you.",
    ...lines,
    `Ranges: ${RANGE_HELP}`,
  ].join("\n");
}

export function helpCommand(all: () => readonly Subcommand[]): Subcommand {
  return {
    name: "help",
    usage: "help",
    summary: "what every subcommand does",
    mutates: false,
    async run(ctx) {
      await ctx.respond({ text: helpText(all()) });
    },
  };
}

/** Summaries are our own mrkdwn (bold, code): only angle brackets need escaping. */
const escapeAngles = (s: string) => s.replace(/</g, "&lt;").replace(/>/g, "&gt;");
