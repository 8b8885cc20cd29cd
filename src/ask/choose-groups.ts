import { resolveGroup, type GroupReader } from "../slack/commands/resolve-group.js";
import { escapeMrkdwn } from "../slack/mrkdwn.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import type { AskMemory } from "./conversation-store.js";
import type { AskGroup, GroupScope, Understanding } from "./types.js";

/*
 * Which groups a question is about (DESIGN, the assistant): a group it names, through rule 13's
 * resolver (id, name, or an unambiguous part of it; an ambiguous one lists the choices); else
 * the groups the conversation's earlier question named; else the groups of the channel it comes
 * from (or the assistant thread's channel context); else every group the workspace follows.
 */

export interface ChooseGroupsDeps {
  insight: GroupReader;
  subscriptions: Pick<SubscriptionStore, "forChannel" | "all">;
}

export type GroupChoice =
  | { ok: true; groups: AskGroup[]; scope: GroupScope; topic: string | undefined; channelId?: string }
  /** Mrkdwn, escaped. */
  | { ok: false; reply: string };

const unique = (rows: { groupId: string; groupName: string }[]): AskGroup[] => {
  const seen = new Map<string, AskGroup>();
  for (const r of rows)
    if (!seen.has(r.groupId)) seen.set(r.groupId, { id: r.groupId, name: r.groupName || r.groupId });
  return [...seen.values()];
};

const example = (name?: string) =>
  `e.g. “unanswered questions in ${name ? escapeMrkdwn(name) : "&lt;group name&gt;"} this week”`;

/** Throws the resolver's Insight errors (the caller says "not answering" or names the failure). */
export async function chooseGroups(
  deps: ChooseGroupsDeps,
  u: Understanding,
  o: { memory?: AskMemory | undefined; channelId?: string | undefined },
): Promise<GroupChoice> {
  if (u.channelId) {
    const groups = unique(await deps.subscriptions.forChannel(u.channelId));
    if (groups.length === 0) {
      return {
        ok: false,
        reply: `<#${u.channelId}> follows no chat group. Name a group instead, ${example()}.`,
      };
    }
    return { ok: true, groups, scope: "channel", topic: u.topic, channelId: u.channelId };
  }
  for (const ref of u.groupRefs) {
    const r = await resolveGroup(deps.insight, ref.ref);
    if (r.ok)
      return { ok: true, groups: [{ id: r.group.id, name: r.group.name }], scope: "named", topic: ref.topic };
    if (r.choices && r.choices.length > 0) {
      return {
        ok: false,
        reply: `${escapeMrkdwn(r.reply)}\nAsk again with one of them, ${example(r.choices[0]?.name ?? "")}.`,
      };
    }
    // "… in the X group" must be a group; "… in X" may just be words about the topic.
    if (ref.explicit) {
      return { ok: false, reply: `${escapeMrkdwn(r.reply)}\nAsk again with a group's name, ${example()}.` };
    }
  }
  if (o.memory?.groups && o.memory.groups.length > 0) {
    return { ok: true, groups: o.memory.groups, scope: "kept", topic: u.topic };
  }
  if (o.channelId) {
    const groups = unique(await deps.subscriptions.forChannel(o.channelId));
    if (groups.length > 0)
      return { ok: true, groups, scope: "channel", topic: u.topic, channelId: o.channelId };
  }
  const all = unique(await deps.subscriptions.all()).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  if (all.length > 0) return { ok: true, groups: all, scope: "workspace", topic: u.topic };
  return {
    ok: false,
    reply:
      "This workspace follows no chat group yet, so I do not know where to look. Name one, e.g. “unanswered questions in &lt;group name&gt; this week” (see `/insight groups`), or follow one in a channel with `/insight subscribe &lt;group&gt;`.",
  };
}
