import { isInsightError } from "../../insight/errors.js";
import { escapeAndTruncate, escapeMrkdwn } from "../mrkdwn.js";
import { replyForError } from "./error-replies.js";
import type { InsightClient } from "../../insight/client.js";
import type { ReportInsightError } from "../../ops/report-insight-error.js";
import type { CommandContext } from "./types.js";

/*
 * One grammar (docs/using.md rule 13): every subcommand that names a chat group reads the name the
 * same way, here. A group is named by its id, its name (any case), or a part of its name that
 * only one group has; a part that several share lists them. `subscribe`, `threads`, `search`
 * and `alerts` look among the groups the key can read; `unsubscribe`, `settings` and
 * `alerts off` among what the channel has (a group the key no longer reads stays removable).
 */

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

/** How a group is matched: the same rule whatever the candidates are. */
export type GroupMatch<T> = { kind: "one"; item: T } | { kind: "none" } | { kind: "several"; items: T[] };

const CHOICES_SHOWN = 10;

/**
 * The candidate `ref` names: its id, its exact name (case-insensitive), else the only one
 * whose name contains `ref`. Pure; `idOf`/`nameOf` read any kind of candidate.
 */
export function matchGroup<T>(
  candidates: readonly T[],
  ref: string,
  idOf: (c: T) => string,
  nameOf: (c: T) => string,
): GroupMatch<T> {
  const wanted = ref.trim();
  const lower = wanted.toLowerCase();
  if (!wanted) return { kind: "none" };
  const byId = candidates.filter((c) => idOf(c) === wanted);
  const exact = byId.length > 0 ? byId : candidates.filter((c) => nameOf(c).toLowerCase() === lower);
  const matches =
    exact.length > 0 ? exact : candidates.filter((c) => nameOf(c).toLowerCase().includes(lower));
  const [first] = matches;
  if (matches.length === 1 && first !== undefined) return { kind: "one", item: first };
  return matches.length === 0 ? { kind: "none" } : { kind: "several", items: matches };
}

/** "• Lumen DB Support (`g-1`)" lines, escaped; at most ten, then how many more. */
export function groupChoices<T>(
  items: readonly T[],
  idOf: (c: T) => string,
  nameOf: (c: T) => string,
): string {
  const lines = items
    .slice(0, CHOICES_SHOWN)
    .map((c) => `• ${escapeAndTruncate(nameOf(c) || idOf(c), 100)} (\`${escapeAndTruncate(idOf(c), 60)}\`)`);
  if (items.length > CHOICES_SHOWN) lines.push(`…and ${items.length - CHOICES_SHOWN} more`);
  return lines.join("\n");
}

/** The reply when a name fits several groups: the same words for every subcommand. Escaped mrkdwn. */
export function severalReply<T>(
  ref: string,
  items: readonly T[],
  idOf: (c: T) => string,
  nameOf: (c: T) => string,
): string {
  return `"${escapeAndTruncate(ref.trim(), 80)}" matches several chat groups; name one by its id or full name:\n${groupChoices(items, idOf, nameOf)}`;
}

/**
 * A chat group named by id, or by its name or part of it among the groups the key can read.
 * An id the service answers 403 for is reported as such, not as unknown. Replies are escaped
 * mrkdwn.
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
  const m = matchGroup(all, wanted, idOf, nameOf);
  if (m.kind === "one") return { ok: true, group: m.item };
  if (m.kind === "none") {
    return {
      ok: false,
      reply: `No chat group named "${escapeAndTruncate(wanted, 80)}" is readable with the app's key. See \`/insight groups\`.`,
    };
  }
  return { ok: false, reply: severalReply(wanted, m.items, idOf, nameOf), choices: m.items };
}

const idOf = (g: ResolvedGroup) => g.id;
const nameOf = (g: ResolvedGroup) => g.name;

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
    await ctx.respond({ text: resolved.reply });
    return undefined;
  }
  return resolved.group;
}

/** A group among what a channel has (subscriptions, alerts): by id, name or part of the name. */
export interface ChannelGroup {
  groupId: string;
  groupName: string;
}

/**
 * Finds what the channel has for a group named as `resolveGroup` reads names, without asking
 * the API; otherwise the reply: `unknown(list)` when nothing matches (given the channel's own
 * list), or the choices when several do.
 */
export function resolveAmong<T extends ChannelGroup>(
  items: readonly T[],
  ref: string,
  unknown: (list: string) => string,
): { ok: true; item: T } | { ok: false; reply: string } {
  const id = (s: T) => s.groupId;
  const name = (s: T) => s.groupName;
  const m = matchGroup(items, ref, id, name);
  if (m.kind === "one") return { ok: true, item: m.item };
  if (m.kind === "several") return { ok: false, reply: severalReply(ref, m.items, id, name) };
  return { ok: false, reply: unknown(groupChoices(items, id, name)) };
}
