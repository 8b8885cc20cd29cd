/*
 * In-memory fakes of the narrow interfaces features take (stores, the Insight client, the
 * Slack wrapper), for command- and handler-level tests that need no server: the test builds
 * the deps, runs a subcommand or a button handler, and reads what it replied and stored.
 * Like Bolt's createDummyCommandMiddlewareArgs, they stand in for the request's world, not for
 * Redis or BullMQ (those are tested for real elsewhere).
 */
import type { AlertSettings } from "../../src/domain/alerts.js";
import { InsightError } from "../../src/insight/errors.js";
import type { ChatGroup, Community, Page, SearchResults, Thread } from "../../src/insight/schemas.js";
import { silentLogger } from "../../src/log.js";
import type { SlackApi } from "../../src/slack/client.js";
import type { CommandsDeps } from "../../src/slack/commands/feature.js";
import type { CommandContext, CommandReply } from "../../src/slack/commands/types.js";
import { tokenize } from "../../src/slack/commands/tokenize.js";
import type { Subscription } from "../../src/store/subscriptions.js";
import { fakePersonalDeps } from "./personal-fakes.js";

/** The subscription store's interface over a Map. */
export class FakeSubscriptions {
  readonly rows = new Map<string, Subscription>();
  private key = (channelId: string, groupId: string) => `${channelId} ${groupId}`;

  async put(sub: Subscription): Promise<{ created: boolean }> {
    const created = !this.rows.has(this.key(sub.channelId, sub.groupId));
    this.rows.set(this.key(sub.channelId, sub.groupId), structuredClone(sub));
    return { created };
  }
  async get(channelId: string, groupId: string): Promise<Subscription | undefined> {
    return this.rows.get(this.key(channelId, groupId));
  }
  async remove(channelId: string, groupId: string): Promise<boolean> {
    return this.rows.delete(this.key(channelId, groupId));
  }
  async forChannel(channelId: string): Promise<Subscription[]> {
    return [...this.rows.values()].filter((s) => s.channelId === channelId);
  }
  async forGroup(groupId: string): Promise<Subscription[]> {
    return [...this.rows.values()].filter((s) => s.groupId === groupId);
  }
  async all(): Promise<Subscription[]> {
    return [...this.rows.values()];
  }
  async resume(channelId: string, groupId: string): Promise<boolean> {
    const s = this.rows.get(this.key(channelId, groupId));
    if (!s?.paused) return false;
    s.paused = undefined;
    return true;
  }
  async pauseChannel(channelId: string, code: string, at: Date): Promise<Subscription[]> {
    const subs = await this.forChannel(channelId);
    for (const s of subs) s.paused = { code, at: at.toISOString() };
    return subs;
  }
}

/** The ops notifier's interface: incidents in a Map, alerts and resolutions recorded. */
export class FakeOps {
  readonly incidents = new Map<string, { at: string; text: string }>();
  readonly resolved: string[] = [];
  unauthorizedAt: string | undefined;

  async alert(incident: string, text: string): Promise<boolean> {
    if (this.incidents.has(incident)) return false;
    this.incidents.set(incident, { at: new Date().toISOString(), text });
    return true;
  }
  async resolve(incident: string): Promise<boolean> {
    this.resolved.push(incident);
    return this.incidents.delete(incident);
  }
  async open(): Promise<Record<string, { at: string; text: string }>> {
    return Object.fromEntries(this.incidents);
  }
  async insightAuthorized(): Promise<void> {
    this.incidents.delete("insight-unauthorized");
  }
  async insightUnauthorized(): Promise<void> {
    this.unauthorizedAt = new Date().toISOString();
    await this.alert("insight-unauthorized", "401");
  }
  async lastUnauthorizedAt(): Promise<string | undefined> {
    return this.unauthorizedAt;
  }
}

export interface FakeGroup {
  id: string;
  name: string;
  community: string;
  threads?: Thread[];
  search?: SearchResults;
  /** Every call about this group fails with this Insight error code. */
  fails?: "forbidden" | "server_error" | "unauthorized";
}

/** The Insight client's reading side over a few communities and groups. */
export class FakeInsight {
  readonly calls: string[] = [];
  constructor(
    readonly communities: Community[],
    readonly groups: FakeGroup[],
  ) {}

  private group(id: string): FakeGroup {
    const g = this.groups.find((x) => x.id === id);
    if (!g) throw new InsightError("not_found", `no chat group ${id}`, { status: 404 });
    if (g.fails) throw new InsightError(g.fails, `${g.fails} for ${id}`);
    return g;
  }
  async listCommunities(): Promise<Community[]> {
    this.calls.push("listCommunities");
    return this.communities;
  }
  async listChatGroups(communityId: string): Promise<ChatGroup[]> {
    this.calls.push(`listChatGroups ${communityId}`);
    return this.groups
      .filter((g) => g.community === communityId)
      .map((g) => ({ _id: g.id, name: g.name, community: g.community, isDirectMessageGroup: false }));
  }
  async getChatGroup(id: string): Promise<ChatGroup> {
    this.calls.push(`getChatGroup ${id}`);
    const g = this.group(id);
    return { _id: g.id, name: g.name, community: g.community };
  }
  async listThreads(id: string, p: { page?: number; limit?: number } = {}): Promise<Page<Thread>> {
    this.calls.push(`listThreads ${id} page ${p.page ?? 1}`);
    const all = this.group(id).threads ?? [];
    const limit = p.limit ?? 20;
    const page = p.page ?? 1;
    return {
      data: all.slice((page - 1) * limit, page * limit),
      pagination: { page, limit, total: all.length, totalPages: Math.max(1, Math.ceil(all.length / limit)) },
      dropped: 0,
    };
  }
  async listMessages(): Promise<Page<never>> {
    return { data: [], pagination: undefined, dropped: 0 };
  }
  async search(id: string, text: string): Promise<SearchResults & { raw: unknown }> {
    this.calls.push(`search ${id} ${text}`);
    const r = this.group(id).search ?? { threads: [], messages: [] };
    return { ...r, raw: {} };
  }
}

/** The Slack wrapper's writing side, recording every call. */
export class FakeSlack implements Pick<
  SlackApi,
  "postMessage" | "publishHome" | "openView" | "pushView" | "updateView" | "call" | "postEphemeral"
> {
  readonly posts: Parameters<SlackApi["postMessage"]>[0][] = [];
  /** Every other Web API method called (e.g. conversations.join), in order. */
  readonly calls: { method: string; args: Record<string, unknown> }[] = [];
  readonly views: { kind: "open" | "push" | "update"; view: unknown }[] = [];
  /** Makes the next call of that method fail with this error. */
  readonly failMethod = new Map<string, unknown>();
  readonly homes: Parameters<SlackApi["publishHome"]>[0][] = [];
  /** Makes the next postMessage fail with this error. */
  failNext: unknown;

  async postMessage(args: Parameters<SlackApi["postMessage"]>[0]) {
    if (this.failNext !== undefined) {
      const err = this.failNext;
      this.failNext = undefined;
      throw err;
    }
    this.posts.push(args);
    return { channel: args.channel, ts: `1700000000.${String(this.posts.length).padStart(6, "0")}` };
  }
  readonly ephemerals: Parameters<SlackApi["postEphemeral"]>[0][] = [];
  async postEphemeral(args: Parameters<SlackApi["postEphemeral"]>[0]) {
    const err = this.failMethod.get("chat.postEphemeral");
    if (err !== undefined) {
      this.failMethod.delete("chat.postEphemeral");
      throw err;
    }
    this.ephemerals.push(args);
    return { message_ts: "1700000000.999999" };
  }
  async publishHome(args: Parameters<SlackApi["publishHome"]>[0]) {
    this.homes.push(args);
    return { id: "V0HOME" };
  }
  async openView(args: Parameters<SlackApi["openView"]>[0]) {
    this.views.push({ kind: "open", view: args.view });
    return { id: "V0MODAL" };
  }
  async pushView(args: Parameters<SlackApi["pushView"]>[0]) {
    this.views.push({ kind: "push", view: args.view });
    return { id: "V0PUSHED" };
  }
  async updateView(args: Parameters<SlackApi["updateView"]>[0]) {
    this.views.push({ kind: "update", view: args.view });
    return { id: "V0MODAL" };
  }
  /** Who users.info says is a workspace admin. */
  readonly admins = new Set<string>();
  async call<T>(method: string, args: Record<string, unknown> = {}): Promise<T> {
    this.calls.push({ method, args });
    const err = this.failMethod.get(method);
    if (err !== undefined) {
      this.failMethod.delete(method);
      throw err;
    }
    if (method === "users.info" && typeof args.user === "string") {
      return { ok: true, user: { id: args.user, is_admin: this.admins.has(args.user) } } as T;
    }
    return { ok: true } as T;
  }
}

/** The triage store's interface over Maps (per thread, as the store keeps it), with the same once-only answers. */
export class FakeTriage {
  readonly handled = new Map<string, { by: string; atMs: number; channelId?: string }>();
  readonly assignees = new Map<string, string>();
  readonly followers = new Map<string, Set<string>>();
  readonly presses = new Set<string>();

  async setHandled(
    t: string,
    handled: boolean,
    by: string,
    at: Date,
    where: { channelId?: string | undefined } = {},
  ): Promise<boolean> {
    if (handled === this.handled.has(t)) return false;
    if (handled) {
      this.handled.set(t, {
        by,
        atMs: at.getTime(),
        ...(where.channelId ? { channelId: where.channelId } : {}),
      });
    } else this.handled.delete(t);
    return true;
  }
  async assign(t: string, user: string): Promise<boolean> {
    if (this.assignees.get(t) === user) return false;
    this.assignees.set(t, user);
    return true;
  }
  async toggleFollow(t: string, user: string): Promise<"followed" | "unfollowed"> {
    const set = this.followers.get(t) ?? new Set<string>();
    this.followers.set(t, set);
    if (set.delete(user)) return "unfollowed";
    set.add(user);
    return "followed";
  }
  async firstPress(u: string, t: string, action: string): Promise<boolean> {
    const k = `${u} ${t} ${action}`;
    if (this.presses.has(k)) return false;
    this.presses.add(k);
    return true;
  }
  async get(t: string) {
    const handled = this.handled.get(t);
    const user = this.assignees.get(t);
    return {
      ...(handled ? { handled } : {}),
      ...(user ? { assignee: { user, by: "", atMs: 0 } } : {}),
      followers: this.followers.get(t)?.size ?? 0,
    };
  }
  async forHome() {
    return { assigned: [], handled: [], open: [] };
  }
}

/** Card effects recorded, as the outbound queue would receive them. */
export class FakeCards {
  readonly refreshed: { threadId: string; key: string; pressedIn?: string }[] = [];
  readonly dms: { userId: string; text: string; card?: { channel: string; ts: string }; key: string }[] = [];
  async refresh(threadId: string, key: string, pressedIn?: string): Promise<void> {
    this.refreshed.push({ threadId, key, ...(pressedIn ? { pressedIn } : {}) });
  }
  async dm(a: { userId: string; text: string; card?: { channel: string; ts: string }; key: string }) {
    this.dms.push(a);
  }
}

/** A queue's counts, as status reads them. */
export const fakeQueue = (name: string, counts: Partial<Record<string, number>> = {}, workers = 1) => ({
  name,
  getJobCounts: async (...states: string[]) =>
    Object.fromEntries(states.map((s) => [s, counts[s] ?? 0])) as Record<string, number>,
  getWorkersCount: async () => workers,
});

export const FIXED_NOW = new Date("2025-03-06T12:00:00.000Z");

/** The deps of every core subcommand and button, from fakes; override any part. */
export function fakeCommandsDeps(over: Partial<CommandsDeps> = {}) {
  const subscriptions = new FakeSubscriptions();
  const ops = new FakeOps();
  const slack = new FakeSlack();
  const insight = new FakeInsight(
    [{ _id: "community-1", name: "Lumen DB" }],
    [{ id: "group-support-01", name: "Lumen DB Support", community: "community-1" }],
  );
  const reported: unknown[] = [];
  /** Every (channel, group) whose digest was brought in line, in order. */
  const synced: string[] = [];
  const alerts: AlertSettings[] = [];
  const triage = new FakeTriage();
  const cards = new FakeCards();
  const personal = fakePersonalDeps();
  const deps: CommandsDeps = {
    help: () => [],
    ...personal.deps,
    triage,
    cards,
    refs: { get: async () => undefined, channelsOf: async () => [] },
    subscriptions,
    ops,
    slack,
    insight,
    health: {
      lastDeliveries: async () => ({}),
      lastThreadDeliveries: async () => ({}),
      deliveryCounts: async () => ({}),
      deadLetterCounts: async () => ({ total: 0, kept: 0, byReason: {} }),
    },
    queues: () => [],
    spoolSize: async () => 0,
    reportInsightError: async (err) => {
      reported.push(err);
    },
    logger: silentLogger,
    adminUserIds: [],
    timeZoneOf: async () => "Europe/Berlin",
    syncDigest: async (channelId, groupId) => {
      synced.push(`${channelId} ${groupId}`);
    },
    alerts: { forChannel: async () => alerts },
    now: () => FIXED_NOW,
    ...over,
  };
  return { deps, subscriptions, ops, slack, insight, reported, triage, cards, synced, alerts, personal };
}

/** A request to one subcommand, as the router builds it; the replies land in `replies`. */
export function dummyCommand(
  text: string,
  o: { channelId?: string; userId?: string } = {},
): { ctx: CommandContext; replies: CommandReply[] } {
  const replies: CommandReply[] = [];
  const ctx: CommandContext = {
    args: tokenize(text),
    rest: text,
    userId: o.userId ?? "U0ALICE",
    channelId: o.channelId ?? "C0UNIT",
    teamId: "T0UNIT",
    triggerId: "trigger-unit",
    respond: async (r) => {
      replies.push(r);
    },
  };
  return { ctx, replies };
}
