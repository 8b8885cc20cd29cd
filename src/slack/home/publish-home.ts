import { gatherStatus, type StatusDeps } from "../../status/gather-status.js";
import type { MessageRefStore } from "../../store/message-refs.js";
import type { Subscription } from "../../store/subscriptions.js";
import type { ThreadRef, TriageStore } from "../../store/triage.js";
import { mayChangeConfig } from "../authorize.js";
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
  slack: Pick<SlackApi, "publishHome">;
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

/**
 * The viewer's threads with what their cards show (title, group), each thread once however many
 * channels show it: in the channel where it was handled or assigned, else where it was first
 * posted. Threads whose cards are no longer kept are left out.
 */
async function gatherThreads(deps: HomeDeps, userId: string): Promise<HomeThreads> {
  const lists = await deps.triage.forHome(userId, HOME_THREADS);
  const describe = async (refs: ThreadRef[], kind: "assigned" | "handled" | "open"): Promise<HomeCard[]> => {
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
  };
  const [assigned, handled, open] = await Promise.all([
    describe(lists.assigned, "assigned"),
    describe(lists.handled, "handled"),
    describe(lists.open, "open"),
  ]);
  return { assigned, handled, open };
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
  const threads = await gatherThreads(deps, userId).catch(() => undefined);
  const personal = await gatherPersonal(deps, userId).catch(() => undefined);
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
