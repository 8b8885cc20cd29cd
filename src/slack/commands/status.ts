import { gatherStatus, type StatusDeps } from "../../status/gather-status.js";
import { renderStatus } from "../render/status.js";
import { seesOperatorDetail } from "../authorize.js";
import type { SlackApi } from "../client.js";
import type { Subcommand } from "./types.js";

export interface StatusCommandDeps extends StatusDeps {
  /** When set, only these users see operator detail (queue names, incident keys). */
  adminUserIds: readonly string[];
  /** Asks Slack whether someone is a workspace admin (operator detail when ADMIN_USER_IDS is unset). */
  slack: Pick<SlackApi, "call">;
  now?: () => Date;
}

export function statusCommand(deps: StatusCommandDeps): Subcommand {
  const now = deps.now ?? (() => new Date());
  return {
    name: "status",
    usage: "status",
    summary:
      "webhook health, work queues, API reachability and paused subscriptions (operator detail for the app's admins)",
    mutates: false,
    async run(ctx) {
      const at = now();
      const [report, detail] = await Promise.all([
        gatherStatus(deps, { now: at }),
        seesOperatorDetail(ctx.userId, deps),
      ]);
      const rendered = renderStatus(report, at, { detail });
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
