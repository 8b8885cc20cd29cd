import { Blocks, Md } from "slack-block-builder";
import type { InsightClient } from "../../insight/client.js";
import { isInsightError } from "../../insight/errors.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "../render/known-blocks.js";
import { fitList } from "../render/limits.js";
import type { RenderedMessage } from "../render/thread-digest.js";
import { replyForError } from "./error-replies.js";
import type { Subcommand } from "./types.js";

export interface CommunityGroups {
  id: string;
  name: string;
  /** The readable non-DM groups, or why they could not be listed. */
  groups: { id: string; name: string }[] | { error: string };
}

/** Section texts stay well under the 3,000-character limit: long lists go on in another section. */
const CHUNK_MAX = 2_800;

function chunks(lines: string[]): string[] {
  const out: string[] = [];
  let current = "";
  for (const line of lines) {
    if (current && current.length + 1 + line.length > CHUNK_MAX) {
      out.push(current);
      current = line;
    } else current = current ? `${current}\n${line}` : line;
  }
  if (current) out.push(current);
  return out;
}

function communityItem(c: CommunityGroups): KnownBlock[] {
  const title = Md.bold(escapeAndTruncate(c.name || c.id, 150));
  if ("error" in c.groups)
    return toKnownBlocks(Blocks.Section({ text: `${title}\n:warning: ${c.groups.error}` }));
  if (c.groups.length === 0)
    return toKnownBlocks(Blocks.Section({ text: `${title}\n${Md.italic("No chat groups.")}` }));
  const lines = c.groups.map(
    (g) => `• ${escapeAndTruncate(g.name || g.id, 150)} (\`${escapeAndTruncate(g.id, 60)}\`)`,
  );
  const [first = "", ...rest] = chunks(lines);
  return toKnownBlocks(
    Blocks.Section({ text: `${title}\n${first}` }),
    ...rest.map((text) => Blocks.Section({ text })),
  );
}

/** Communities and their chat groups, as `/insight groups` shows them. Pure. */
export function renderGroups(communities: CommunityGroups[]): RenderedMessage {
  const total = communities.reduce((n, c) => n + ("error" in c.groups ? 0 : c.groups.length), 0);
  if (communities.length === 0) {
    return {
      text: "The app's API key cannot read any community.",
      blocks: toKnownBlocks(
        Blocks.Section({
          text: "The app's API key cannot read any community. Ask a community admin to grant it access in the Insight dashboard.",
        }),
      ),
    };
  }
  const head = toKnownBlocks(
    Blocks.Section({
      text: `${Md.bold("Chat groups the app can read")} — ${total} in ${communities.length} communit${communities.length === 1 ? "y" : "ies"} (direct-message groups left out)`,
    }),
  );
  const tail = toKnownBlocks(
    Blocks.Context().elements(
      "Use a group's id or name: `/insight subscribe <group>`, `/insight threads [range] <group>`.",
    ),
  );
  const fitted = fitList({
    head,
    items: communities.map(communityItem),
    tail,
    more: (n) => `…and ${n} more communities.`,
  });
  return { text: `Chat groups the app can read: ${total}`, blocks: fitted.blocks };
}

export interface GroupsDeps {
  insight: Pick<InsightClient, "listCommunities" | "listChatGroups">;
  reportInsightError: ReportInsightError;
}

export function groupsCommand(deps: GroupsDeps): Subcommand {
  return {
    name: "groups",
    usage: "groups",
    summary: "the communities and chat groups the app's API key can read",
    mutates: false,
    async run(ctx) {
      const client = deps.insight;
      const communities = await client.listCommunities();
      const listed = await Promise.all(
        communities.map(async (c): Promise<CommunityGroups> => {
          try {
            const list = await client.listChatGroups(c._id, { excludeDM: true });
            return {
              id: c._id,
              name: c.name,
              // excludeDM is the service's filter; the flag is checked too, in case it is ignored.
              groups: list.filter((g) => !g.isDirectMessageGroup).map((g) => ({ id: g._id, name: g.name })),
            };
          } catch (err) {
            // A 401 here is for everyone: let the router say so (and alert) once.
            if (isInsightError(err) && err.code === "unauthorized") throw err;
            await deps.reportInsightError(err);
            return {
              id: c._id,
              name: c.name,
              groups: { error: replyForError(err, "this community's chat groups") },
            };
          }
        }),
      );
      const rendered = renderGroups(listed);
      await ctx.respond({ text: rendered.text, blocks: rendered.blocks });
    },
  };
}
