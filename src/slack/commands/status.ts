import { gatherStatus, type StatusDeps } from "../../status/gather-status.js";
import { renderStatus } from "../render/status.js";
import { mayChangeConfig } from "../authorize.js";
import type { Subcommand } from "./types.js";

export interface StatusCommandDeps extends StatusDeps {
  /** When set, only these users see operator detail (queue names, incident keys). */
  adminUserIds: readonly string[];
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
      const report = await gatherStatus(deps, { now: at });
      const rendered = renderStatus(report, at, { detail: mayChangeConfig(ctx.userId, deps.adminUserIds) });
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
