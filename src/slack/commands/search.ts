import type { InsightClient } from "../../insight/client.js";
import type { SearchMessageHit, SearchThreadHit } from "../../insight/schemas.js";
import type { Logger } from "../../log.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import {
  renderSearchResults,
  type GroupedMessageHit,
  type GroupedThreadHit,
} from "../render/search-results.js";
import { replyForError } from "./error-replies.js";
import { resolveGroupOrReply, type ResolveGroupDeps } from "./resolve-group.js";
import type { Subcommand } from "./types.js";

/** Hits asked of each group; the reply shows the best few of all groups together. */
export const SEARCH_LIMIT_PER_GROUP = 10;
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

/** Best first; hits without a score keep the service's order, after scored ones. */
function byScore<T extends { score: number | undefined }>(hits: T[]): T[] {
  return hits
    .map((h, i) => ({ h, i }))
    .sort((a, b) => (b.h.score ?? -Infinity) - (a.h.score ?? -Infinity) || a.i - b.i)
    .map(({ h }) => h);
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
      const client = deps.insight;
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

      const outcomes = await Promise.all(
        groups.map(async (g) => {
          try {
            const r = await client.search(g.id, parsed.text, { limit: SEARCH_LIMIT_PER_GROUP });
            return { g, ok: true as const, threads: r.threads, messages: r.messages };
          } catch (err) {
            deps.logger.warn({ groupId: g.id, err }, "search failed");
            await deps.reportInsightError(err);
            return {
              g,
              ok: false as const,
              reply: replyForError(err, `the chat group "${escapeMrkdwn(g.name)}"`),
            };
          }
        }),
      );
      const failures = outcomes.flatMap((o) => (o.ok ? [] : [{ name: o.g.name, reply: o.reply }]));
      if (failures.length === outcomes.length) {
        // Nothing to show: the reason alone, said once per distinct reason.
        const reasons = [...new Set(failures.map((f) => f.reply))];
        await ctx.respond({ text: reasons.join("\n") });
        return;
      }
      const withGroup = <T extends SearchThreadHit | SearchMessageHit>(
        hits: T[],
        g: { id: string; name: string },
      ) => hits.map((h) => ({ ...h, groupName: g.name, groupId: g.id }));
      const threadHits: GroupedThreadHit[] = byScore(
        outcomes.flatMap((o) => (o.ok ? withGroup(o.threads, o.g) : [])),
      );
      const messageHits: GroupedMessageHit[] = byScore(
        outcomes.flatMap((o) => (o.ok ? withGroup(o.messages, o.g) : [])),
      );
      const rendered = renderSearchResults({
        query: parsed.text,
        groups,
        threads: threadHits,
        messages: messageHits,
        failures,
      });
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
