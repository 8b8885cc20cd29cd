import { gatherStatus, type StatusDeps } from "../../status/gather-status.js";
import { renderStatus } from "../render/status.js";
import type { Subcommand } from "./types.js";

export interface StatusCommandDeps extends StatusDeps {
  now?: () => Date;
}

export function statusCommand(deps: StatusCommandDeps): Subcommand {
  const now = deps.now ?? (() => new Date());
  return {
    name: "status",
    usage: "status",
    summary: "webhook health, queues, dead letters, API reachability and paused subscriptions",
    mutates: false,
    async run(ctx) {
      const at = now();
      const report = await gatherStatus(deps, { now: at });
      const rendered = renderStatus(report, at);
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
