import type { Logger } from "../../log.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import { mayChangeConfig } from "../authorize.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { replyForError } from "./error-replies.js";
import { helpCommand, helpText } from "./help.js";
import { splitSubcommand, tokenize } from "./tokenize.js";
import type { CommandRequest, Subcommand } from "./types.js";

export interface RouterDeps {
  logger: Logger;
  /** Who may run subcommands that change configuration; empty: everyone. */
  adminUserIds: readonly string[];
  reportInsightError: ReportInsightError;
}

/**
 * `/insight` subcommands: `help` first, then the features' subcommands in the order given;
 * `help` lists every one in that order.
 */
export class CommandRouter {
  private readonly commands: Subcommand[] = [];

  constructor(
    private readonly deps: RouterDeps,
    subcommands: readonly Subcommand[] = [],
  ) {
    this.register(helpCommand(() => this.commands));
    for (const c of subcommands) this.register(c);
  }

  register(c: Subcommand): void {
    const i = this.commands.findIndex((x) => x.name === c.name);
    if (i >= 0) this.commands[i] = c;
    else this.commands.push(c);
  }

  get all(): readonly Subcommand[] {
    return this.commands;
  }

  /** Runs one command text; every path ends in exactly one reply. */
  async dispatch(text: string, request: CommandRequest): Promise<void> {
    const { logger } = this.deps;
    const { name, rest } = splitSubcommand(text);
    const cmd = this.commands.find((c) => c.name === (name || "help"));
    // A reply that cannot be delivered (response_url down) is logged, never left unhandled.
    const reply = (t: string) =>
      request.respond({ text: t }).catch((err: unknown) => {
        logger.warn({ err }, "slash command reply failed");
      });
    if (!cmd) {
      await reply(
        `There is no \`${escapeMrkdwn(name.slice(0, 40))}\` subcommand.\n${helpText(this.commands)}`,
      );
      return;
    }
    if (cmd.mutates && !mayChangeConfig(request.userId, this.deps.adminUserIds)) {
      await reply(
        `Only the app's admins can use \`/insight ${cmd.name}\` here. Reading commands (\`threads\`, \`search\`, \`list\`, \`status\`) are open to everyone.`,
      );
      return;
    }
    try {
      await cmd.run({ ...request, args: tokenize(rest), rest });
    } catch (err) {
      logger.error({ subcommand: cmd.name, channel: request.channelId, err }, "slash command failed");
      await this.deps.reportInsightError(err);
      await reply(replyForError(err));
    }
  }
}
