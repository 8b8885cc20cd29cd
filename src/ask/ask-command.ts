import type { Subcommand } from "../slack/commands/types.js";
import { EMOJI } from "../slack/render/wording.js";
import { askQuestion } from "./ask-question.js";
import type { AskDeps } from "./deps.js";

const USAGE = "ask <question>";

/**
 * `/insight ask <question>`: the assistant's answer, privately (an ephemeral reply, rule 14).
 * A line at once says it is being read; the answer replaces it.
 */
export function askCommand(deps: AskDeps): Subcommand {
  return {
    name: "ask",
    usage: USAGE,
    summary:
      "a question in plain words about the community (“what are people unhappy about this week?”, “unanswered questions in Lumen DB Support”), answered privately from the service's search and listings",
    mutates: false,
    async run(ctx) {
      const text = ctx.rest.trim();
      if (text) await ctx.respond({ text: `${EMOJI.onItsWay} Reading the community…` });
      const outcome = await askQuestion(deps, { text, userId: ctx.userId, channelId: ctx.channelId });
      await ctx.respond({ ...outcome.reply, ...(text ? { replace_original: true } : {}) });
    },
  };
}
