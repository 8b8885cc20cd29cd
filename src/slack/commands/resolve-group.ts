import { isInsightError } from "../../insight/errors.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { replyForError } from "./error-replies.js";
import type { InsightClient } from "../../insight/client.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import type { CommandContext } from "./types.js";

/** What finding a group by id or name reads. */
export type GroupReader = Pick<InsightClient, "getChatGroup" | "listCommunities" | "listChatGroups">;

export interface ResolveGroupDeps {
  insight: GroupReader;
  reportInsightError: ReportInsightError;
}

export interface ResolvedGroup {
  id: string;
  name: string;
  communityId: string | undefined;
}

export type GroupResolution =
  { ok: true; group: ResolvedGroup } | { ok: false; reply: string; choices?: ResolvedGroup[] };

/**
 * A chat group named by id, or by its name (case-insensitive) among the groups the key can
 * read. An id the service answers 403 for is reported as such, not as unknown.
 */
export async function resolveGroup(client: GroupReader, ref: string): Promise<GroupResolution> {
  const wanted = ref.trim();
  if (!wanted) return { ok: false, reply: "Name a chat group: its id or its name (see `/insight groups`)." };
  if (/^[A-Za-z0-9_-]{6,}$/.test(wanted)) {
    try {
      const g = await client.getChatGroup(wanted);
      return { ok: true, group: { id: g._id, name: g.name || wanted, communityId: g.community } };
    } catch (err) {
      if (!isInsightError(err) || err.code !== "not_found") throw err;
    }
  }
  const all = await listReadableGroups(client);
  const lower = wanted.toLowerCase();
  const exact = all.filter((g) => g.name.toLowerCase() === lower || g.id === wanted);
  const matches = exact.length > 0 ? exact : all.filter((g) => g.name.toLowerCase().includes(lower));
  if (matches.length === 1 && matches[0]) return { ok: true, group: matches[0] };
  if (matches.length === 0) {
    return {
      ok: false,
      reply: `No chat group named "${wanted}" is readable with the app's key. See \`/insight groups\`.`,
    };
  }
  const list = matches
    .slice(0, 10)
    .map((g) => `• ${g.name} (\`${g.id}\`)`)
    .join("\n");
  return {
    ok: false,
    reply: `"${wanted}" matches several chat groups; use the id:\n${list}`,
    choices: matches,
  };
}

/** Every non-DM chat group the key can read; communities that answer 403 are skipped. */
export async function listReadableGroups(
  client: Pick<InsightClient, "listCommunities" | "listChatGroups">,
): Promise<ResolvedGroup[]> {
  const out: ResolvedGroup[] = [];
  for (const c of await client.listCommunities()) {
    try {
      for (const g of await client.listChatGroups(c._id, { excludeDM: true })) {
        if (!g.isDirectMessageGroup) out.push({ id: g._id, name: g.name, communityId: c._id });
      }
    } catch (err) {
      if (!isInsightError(err) || err.code !== "forbidden") throw err;
    }
  }
  return out;
}

/**
 * `resolveGroup` for a subcommand: the group, or undefined after the user has been told why
 * not (unknown, ambiguous with the choices, or the API's failure in plain words).
 */
export async function resolveGroupOrReply(
  deps: ResolveGroupDeps,
  ctx: CommandContext,
  ref: string,
): Promise<ResolvedGroup | undefined> {
  let resolved: GroupResolution;
  try {
    resolved = await resolveGroup(deps.insight, ref);
  } catch (err) {
    await deps.reportInsightError(err);
    await ctx.respond({ text: replyForError(err, `the chat group "${escapeMrkdwn(ref)}"`) });
    return undefined;
  }
  if (!resolved.ok) {
    await ctx.respond({ text: escapeMrkdwn(resolved.reply) });
    return undefined;
  }
  return resolved.group;
}
