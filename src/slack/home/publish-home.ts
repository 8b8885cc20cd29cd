import { gatherStatus, type StatusDeps } from "../../status/gather-status.js";
import type { MessageRefStore } from "../../store/message-refs.js";
import type { Subscription } from "../../store/subscriptions.js";
import type { ThreadRef, TriageStore } from "../../store/triage.js";
import { mayChangeConfig, seesOperatorDetail } from "../authorize.js";
import type { SlackApi } from "../client.js";
import type { ScheduleLine } from "../commands/list.js";
import { renderHome, type HomeCard, type HomeThreads } from "../render/home.js";
import type { KnownBlock } from "../render/known-blocks.js";
import type { ReminderStore } from "../../store/reminders.js";
import type { WatchStore } from "../../store/watches.js";

/** The Home tab's live API check waits at most this long (the event is acked already). */
const HOME_PROBE_TIMEOUT_MS = 3_000;

/** What the Home tab reads (the workspace's subscriptions, schedules and health) and where it goes. */
export interface HomeDeps extends StatusDeps {
  /** Publishes the tab; `users.info` says who sees operator detail; See all opens a modal. */
  slack: Pick<SlackApi, "publishHome" | "call" | "openView">;
  adminUserIds: readonly string[];
  /** Absent when the app runs without weekly summaries. */
  describeSchedule?: ScheduleLine;
  triage: Pick<TriageStore, "forHome" | "get">;
  /** The thread's cards: Home shows one of them per thread (the one pressed, else the first posted). */
  refs: Pick<MessageRefStore, "get" | "channelsOf">;
  /** Multi-workspace mode: the workspace's Insight connection (Connect, its webhook URL) on top. */
  homeTop?: (userId: string) => Promise<KnownBlock[]>;
  /** A channel's zone, which its digest times are said in (absent: the times go without a zone). */
  timeZoneOf?: (channelId: string) => Promise<string>;
  /** The workspace's subcommands, for the quick help (`help` lists the same). */
  help(): readonly { usage: string; summary: string }[];
  /** The viewer's own watches and reminders ("My watches"); absent: the section is left out. */
  watches?: Pick<WatchStore, "list" | "limit">;
  reminders?: Pick<ReminderStore, "list">;
}

/** How many threads of each kind Home lists. */
const HOME_THREADS = 5;
/** Open threads counted for "…and N more" (beyond: "N+"), and listed by See all. */
export const HOME_OPEN_COUNTED = 50;
export const OPEN_THREADS_LISTED = 100;

type ListKind = "assigned" | "handled" | "open";

/**
 * The threads of a Home list as their cards show them (title, group), each once however many
 * channels show it: in the channel where it was handled or assigned, else where it was first
 * posted. Threads whose cards are no longer kept are left out.
 */
async function describeCards(
  deps: Pick<HomeDeps, "refs" | "triage">,
  refs: ThreadRef[],
  kind: ListKind,
): Promise<HomeCard[]> {
  const cards = await Promise.all(
    refs.map(async (r): Promise<HomeCard | undefined> => {
      const [triage, posted] = await Promise.all([
        kind === "open" ? undefined : deps.triage.get(r.threadId),
        deps.refs.channelsOf(r.threadId),
      ]);
      const pressedIn = kind === "handled" ? triage?.handled?.channelId : triage?.assignee?.channelId;
      const channels = [...new Set([...(pressedIn ? [pressedIn] : []), ...posted])].slice(0, 3);
      for (const channelId of channels) {
        const d = (await deps.refs.get(channelId, r.threadId))?.card?.digest;
        if (!d) continue;
        const handledBy = kind === "handled" ? triage?.handled?.by : undefined;
        return {
          channelId,
          title: d.title,
          groupName: d.groupName || d.groupId,
          atMs: r.atMs,
          ...(handledBy ? { handledBy } : {}),
        };
      }
      return undefined;
    }),
  );
  return cards.filter((c): c is HomeCard => c !== undefined);
}

/** Every open thread the viewer's Home counts (for See all), newest first, and whether there are more. */
export async function openThreads(
  deps: Pick<HomeDeps, "refs" | "triage">,
  userId: string,
): Promise<{ cards: HomeCard[]; capped: boolean }> {
  const lists = await deps.triage.forHome(userId, OPEN_THREADS_LISTED);
  return {
    cards: await describeCards(deps, lists.open, "open"),
    capped: lists.open.length >= OPEN_THREADS_LISTED,
  };
}

/**
 * The viewer's threads with what their cards show (title, group), each thread once however many
 * channels show it: in the channel where it was handled or assigned, else where it was first
 * posted. Threads whose cards are no longer kept are left out.
 */
async function gatherThreads(deps: HomeDeps, userId: string): Promise<HomeThreads> {
  // Open threads are counted further than they are shown, for "…and N more".
  const counted = await deps.triage.forHome(userId, HOME_OPEN_COUNTED + HOME_THREADS);
  const lists = {
    assigned: counted.assigned.slice(0, HOME_THREADS),
    handled: counted.handled.slice(0, HOME_THREADS),
    open: counted.open.slice(0, HOME_THREADS),
  };
  const describe = (refs: ThreadRef[], kind: ListKind) => describeCards(deps, refs, kind);
  const [assigned, handled, open] = await Promise.all([
    describe(lists.assigned, "assigned"),
    describe(lists.handled, "handled"),
    describe(lists.open, "open"),
  ]);
  const openMore = Math.max(0, counted.open.length - lists.open.length);
  return {
    assigned,
    handled,
    open,
    openMore,
    openMoreCapped: counted.open.length >= HOME_OPEN_COUNTED + HOME_THREADS,
  };
}

/** The viewer's watches and pending reminders, when the stores are there. */
async function gatherPersonal(deps: HomeDeps, userId: string) {
  const { watches, reminders } = deps;
  if (!watches || !reminders) return undefined;
  const [w, r] = await Promise.all([watches.list(userId), reminders.list(userId)]);
  return { watches: w, reminders: r, limit: watches.limit };
}

export interface PublishHomeOptions {
  notice?: string;
  now?: Date;
}

/** Gathers the workspace's subscriptions, schedules and health, and publishes the user's Home tab. */
export async function publishHome(deps: HomeDeps, userId: string, o: PublishHomeOptions = {}): Promise<void> {
  const now = o.now ?? new Date();
  const [subs, status] = await Promise.all([
    // Each part degrades on its own: the tab shows what could be read (and says Redis is down).
    deps.subscriptions.all().catch((): Subscription[] => []),
    gatherStatus(deps, { now, probeTimeoutMs: HOME_PROBE_TIMEOUT_MS }).catch(() => undefined),
  ]);
  const [threads, personal, detail] = await Promise.all([
    gatherThreads(deps, userId).catch(() => undefined),
    gatherPersonal(deps, userId).catch(() => undefined),
    seesOperatorDetail(userId, deps),
  ]);
  const schedules = new Map<string, string>();
  const channels = [...new Set(subs.map((s) => s.channelId))];
  const timeZones = new Map<string, string>();
  const zoneOf = deps.timeZoneOf;
  if (zoneOf) {
    // Only digest times need a zone; an unreadable one leaves the times without it.
    const digestChannels = [
      ...new Set(subs.filter((s) => s.delivery?.mode === "digest").map((s) => s.channelId)),
    ];
    const zones = await Promise.all(digestChannels.map((c) => zoneOf(c).catch(() => undefined)));
    digestChannels.forEach((c, i) => {
      const z = zones[i];
      if (z) timeZones.set(c, z);
    });
  }
  const describe = deps.describeSchedule;
  if (describe) {
    // A schedule that cannot be read is left off its channel's line, not a failed tab.
    const lines = await Promise.all(channels.map((c) => describe(c).catch(() => undefined)));
    channels.forEach((c, i) => {
      const line = lines[i];
      if (line) schedules.set(c, line);
    });
  }
  const view = renderHome({
    subscriptions: subs,
    schedules,
    timeZones,
    status,
    help: deps.help().map((c) => ({ usage: c.usage, summary: c.summary })),
    canChange: mayChangeConfig(userId, deps.adminUserIds),
    detail,
    adminsOnly: deps.adminUserIds.length > 0,
    ...(o.notice !== undefined ? { notice: o.notice } : {}),
    ...(threads ? { threads } : {}),
    ...(personal ? { personal } : {}),
  });
  const top = deps.homeTop ? await deps.homeTop(userId).catch((): KnownBlock[] => []) : [];
  const blocks = Array.isArray(view.blocks) ? (view.blocks as unknown[]) : [];
  // Home tabs take 100 blocks: the connection section stays, the end of the tab gives way.
  const withTop = top.length > 0 ? { ...view, blocks: [...top, ...blocks].slice(0, 100) } : view;
  await deps.slack.publishHome({ user_id: userId, view: withTop });
}
