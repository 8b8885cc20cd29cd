import type { Subcommand } from "./types.js";

/** Usage of every subcommand, in the order given. */
export function helpText(subcommands: readonly Subcommand[]): string {
  const lines = subcommands.map((s) => `• \`/insight ${s.usage}\` — ${s.summary}`);
  return [
    "*Insight Relay* brings your community's chat groups into Slack. Replies are visible only to you.",
    ...lines,
    "Ranges: `last7Days`, `last30Days`, `last3Months`, `last6Months`, `allTime`.",
  ].join("\n");
}

export function helpCommand(all: () => readonly Subcommand[]): Subcommand {
  return {
    name: "help",
    usage: "help",
    summary: "this help",
    mutates: false,
    async run(ctx) {
      await ctx.respond({ text: helpText(all()) });
    },
  };
}
