import { gatherStatus } from "../../status/gather-status.js";
import { renderStatus } from "../render/status.js";
import type { Subcommand } from "./types.js";

export const status: Subcommand = {
  name: "status",
  usage: "status",
  summary: "webhook health, queues, dead letters, API reachability and paused subscriptions",
  mutates: false,
  async run(ctx) {
    const now = new Date();
    const report = await gatherStatus(ctx.services, { now });
    const rendered = renderStatus(report, now);
    await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
  },
};
