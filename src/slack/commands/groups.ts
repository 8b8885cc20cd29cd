import { Blocks, Elements, Md } from "slack-block-builder";
import type { InsightClient } from "../../insight/client.js";
import { isInsightError } from "../../insight/errors.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { toKnownBlocks, type KnownBlock } from "../render/known-blocks.js";
import { fitList } from "../render/limits.js";
import type { RenderedMessage } from "../render/thread-digest.js";
import { EMOJI, plural } from "../render/wording.js";
import { encodeSubscribeHere, SETTINGS_ACTIONS } from "../settings-ids.js";
import { replyForError } from "./error-replies.js";
import type { Subcommand } from "./types.js";

export interface CommunityGroups {
  id: string;
  name: string;
  /** The readable non-DM groups, or why they could not be listed. */
  groups: { id: string; name: string }[] | { error: string };
}

function subscribeHereButton(g: { id: string; name: string }) {
  return Elements.Button({
    text: "Subscribe here",
    actionId: SETTINGS_ACTIONS.subscribeHere,
    value: encodeSubscribeHere({ g: g.id, n: g.name }),
  });
}

/**
 * A community as list items: its title with its first group, then one item per further group,
 * each with a **Subscribe here** button (so a long community is cut between groups, not dropped).
 */
function communityItems(c: CommunityGroups): KnownBlock[][] {
  const title = Md.bold(escapeAndTruncate(c.name || c.id, 150));
  if ("error" in c.groups)
    return [toKnownBlocks(Blocks.Section({ text: `${title}\n${EMOJI.problem} ${c.groups.error}` }))];
  if (c.groups.length === 0)
    return [toKnownBlocks(Blocks.Section({ text: `${title}\n${Md.italic("No chat groups.")}` }))];
  return c.groups.map((g, i) => {
    const line = `• ${escapeAndTruncate(g.name || g.id, 150)} (\`${escapeAndTruncate(g.id, 60)}\`)`;
    return toKnownBlocks(
      Blocks.Section({ text: i === 0 ? `${title}\n${line}` : line }).accessory(subscribeHereButton(g)),
    );
  });
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
      text: `${Md.bold("Chat groups the app can read")} — ${plural(total, "group")} in ${plural(communities.length, "community", "communities")} (direct-message groups left out)`,
    }),
  );
  const tail = toKnownBlocks(
    Blocks.Context().elements(
      "*Subscribe here* follows a group in this channel with every thread; options (filters, digest mode) with `/insight subscribe &lt;group&gt; [options]`, then `/insight settings`. Listings: `/insight threads [range] &lt;group&gt;`.",
    ),
  );
  const fitted = fitList({
    head,
    items: communities.flatMap(communityItems),
    tail,
    more: (n) => `…and ${plural(n, "more chat group")}: name one with \`/insight subscribe &lt;group&gt;\`.`,
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
