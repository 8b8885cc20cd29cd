import type { InsightClient } from "../../insight/client.js";
import type { Logger } from "../../log.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { renderSearchResults } from "../render/search-results.js";
import { searchGroups } from "./search-groups.js";
import { resolveGroupOrReply, type ResolveGroupDeps } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

export { SEARCH_LIMIT_PER_GROUP } from "./search-groups.js";
export const MAX_QUERY_LENGTH = 500;
const GROUP_FLAGS = new Set(["--group", "-g", "--in"]);
const USAGE = "search <text> [--group <group>]";

export interface SearchDeps extends ResolveGroupDeps {
  insight: Pick<InsightClient, "search"> & ResolveGroupDeps["insight"];
  subscriptions: Pick<SubscriptionStore, "forChannel">;
  logger: Logger;
}

export type SearchArgs =
  { ok: true; text: string; groupRef: string | undefined } | { ok: false; reply: string };

/** `<text> [--group <group>]`; the group may also be written `--group=<group>`. */
export function parseSearchArgs(args: readonly string[]): SearchArgs {
  const words = [...args];
  let groupRef: string | undefined;
  const at = words.findIndex((w) => GROUP_FLAGS.has(w.toLowerCase()) || /^--group=/i.test(w));
  if (at >= 0) {
    const flag = words[at] ?? "";
    const inline = flag.includes("=") ? flag.slice(flag.indexOf("=") + 1) : "";
    groupRef = [inline, ...words.slice(at + 1)].filter(Boolean).join(" ").trim();
    words.splice(at);
    if (!groupRef)
      return {
        ok: false,
        reply: `Name the group after \`--group\`. Usage: \`/insight ${escapeMrkdwn(USAGE)}\``,
      };
  }
  const text = words.join(" ").trim();
  if (!text) return { ok: false, reply: `Say what to look for. Usage: \`/insight ${escapeMrkdwn(USAGE)}\`` };
  if (text.length > MAX_QUERY_LENGTH) {
    return {
      ok: false,
      reply: `The search text is too long (${text.length} characters; at most ${MAX_QUERY_LENGTH}).`,
    };
  }
  return { ok: true, text, groupRef };
}

export function searchCommand(deps: SearchDeps): Subcommand {
  return {
    name: "search",
    usage: USAGE,
    summary:
      "semantic search in this channel's chat groups (or the one named); results can be shared in the channel",
    mutates: false,
    async run(ctx) {
      const parsed = parseSearchArgs(ctx.args);
      if (!parsed.ok) {
        await ctx.respond({ text: parsed.reply });
        return;
      }
      let groups: { id: string; name: string }[];
      if (parsed.groupRef) {
        const group = await resolveGroupOrReply(deps, ctx, parsed.groupRef);
        if (!group) return;
        groups = [{ id: group.id, name: group.name }];
      } else {
        const subs = await deps.subscriptions.forChannel(ctx.channelId);
        if (subs.length === 0) {
          await ctx.respond({
            text: "This channel follows no chat group, so there is nothing to search here. Name one: `/insight search &lt;text&gt; --group &lt;group&gt;` (see `/insight groups`).",
          });
          return;
        }
        groups = subs.map((s) => ({ id: s.groupId, name: s.groupName || s.groupId }));
      }

      const found = await searchGroups(deps, groups, parsed.text);
      if (found.allFailed) {
        // Nothing to show: the reason alone, said once per distinct reason.
        const reasons = [...new Set(found.failures.map((f) => f.reply))];
        await ctx.respond({ text: reasons.join("\n") });
        return;
      }
      const rendered = renderSearchResults({
        query: parsed.text,
        groups,
        threads: found.threads,
        messages: found.messages,
        failures: found.failures,
      });
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
