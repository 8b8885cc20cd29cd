import type { Logger } from "../../log.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { replyForError } from "./error-replies.js";
import { mayChangeConfig } from "../interactions/authorize.js";
import { helpCommand, helpText } from "./help.js";
import { list } from "./list.js";
import { subscribe } from "./subscribe.js";
import { tokenize, splitSubcommand } from "./tokenize.js";
import type { CommandContext, Subcommand } from "./types.js";
import { unsubscribe } from "./unsubscribe.js";

/**
 * `/insight` subcommands. Later modules add theirs with `register`; `help` lists every one
 * in registration order.
 */
export class CommandRouter {
  private readonly commands: Subcommand[] = [];

  constructor(private readonly logger: Logger) {
    this.register(helpCommand(() => this.commands));
    for (const c of [subscribe, unsubscribe, list]) this.register(c);
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
  async dispatch(
    text: string,
    base: Omit<CommandContext, "args" | "rest">,
    adminUserIds: string[],
  ): Promise<void> {
    const { name, rest } = splitSubcommand(text);
    const cmd = this.commands.find((c) => c.name === (name || "help"));
    // A reply that cannot be delivered (response_url down) is logged, never left unhandled.
    const reply = (t: string) =>
      base.respond({ text: t }).catch((err: unknown) => {
        this.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          "slash command reply failed",
        );
      });
    if (!cmd) {
      await reply(
        `There is no \`${escapeMrkdwn(name.slice(0, 40))}\` subcommand.\n${helpText(this.commands)}`,
      );
      return;
    }
    if (cmd.mutates && !mayChangeConfig(base.userId, adminUserIds)) {
      await reply(
        `Only the app's admins can use \`/insight ${cmd.name}\` here. Reading commands (\`threads\`, \`search\`, \`list\`, \`status\`) are open to everyone.`,
      );
      return;
    }
    try {
      await cmd.run({ ...base, args: tokenize(rest), rest });
    } catch (err) {
      this.logger.error(
        {
          subcommand: cmd.name,
          channel: base.channelId,
          err: err instanceof Error ? err.message : String(err),
        },
        "slash command failed",
      );
      await base.services.reportInsightError(err).catch(() => undefined);
      await base.respond({ text: replyForError(err) }).catch(() => undefined);
    }
  }
}
