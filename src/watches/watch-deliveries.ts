import type { ThreadDigest } from "../domain/thread-digest.js";
import { decideWatchDeliveries, needsTimeZone, type WatchDelivery } from "../domain/watch-delivery.js";
import { matchesWatch, type Watch } from "../domain/watch.js";
import type { Logger } from "../log.js";
import { DIGEST_EVENT_TYPE, type DigestMetadata, type SlackSender } from "../slack/outbound/slack-sender.js";
import { renderGatheredWatchDm, renderWatchDm } from "../slack/render/watch-dm.js";
import type { TriageStore } from "../store/triage.js";
import type { WatchDmRefs } from "../store/watch-dms.js";
import type { PendingWatchMatch, WatchPendingStore } from "../store/watch-pending.js";
import type { WatchStore } from "../store/watches.js";

/*
 * What the delivery path calls for personal watches (docs/using.md, `watch`), each step a small
 * function with narrow deps, so that the Slack job handlers can run them in the person's DM turn
 * (the outbound policy is theirs, not this module's):
 *
 * 1. `watchesMatching(deps, digest)` for each thread change (after the digest is built, whether
 *    or not any channel follows the group) → who gets what;
 * 2. per delivery: `prepareWatchDm` / `sendWatchDm` (a first match), `prepareWatchDmEdit` /
 *    `sendWatchDmEdit` (a later change), `holdWatchMatch` (daily or quiet hours: then queue a
 *    gathering job with `gatherJobId`, delayed to `dueAtMs`);
 * 3. the gathering job: `prepareGatheredWatchDm` / `sendGatheredWatchDm`;
 * 4. a triage change (a press or a reaction on any card of the thread): `prepareWatchDmTriage`
 *    re-renders the DM with the thread's triage now.
 */

export interface WatchMatchDeps {
  watches: Pick<WatchStore, "all">;
  watchDms: Pick<WatchDmRefs, "forThread">;
  /** A person's own Slack time zone; asked only of people with quiet hours or a daily time that match. */
  userTimeZoneOf: (userId: string) => Promise<string>;
  logger: Logger;
  now?: () => number;
}

/**
 * Who gets what for one change of a thread: a DM, an edit of their DM, a line of their next
 * daily DM, or a line held until their quiet hours end (domain/watch-delivery.ts decides).
 */
export async function watchesMatching(deps: WatchMatchDeps, digest: ThreadDigest): Promise<WatchDelivery[]> {
  const [all, dms] = await Promise.all([deps.watches.all(), deps.watchDms.forThread(digest.threadId)]);
  const candidates = all.filter((w) => !w.group || w.group.id === digest.groupId);
  if (candidates.length === 0 && dms.size === 0) return [];
  // Zones only for those whose matching watches need one (quiet hours, a daily time).
  const byUser = new Map<string, Watch[]>();
  for (const w of candidates) {
    if (matchesWatch(w, digest)) byUser.set(w.userId, [...(byUser.get(w.userId) ?? []), w]);
  }
  const zoneUsers = [...byUser].filter(([u, ws]) => !dms.has(u) && needsTimeZone(ws)).map(([u]) => u);
  const zones = new Map<string, string>();
  await Promise.all(
    zoneUsers.map(async (u) => {
      const zone = await deps.userTimeZoneOf(u).catch((err: unknown) => {
        deps.logger.info({ err, user: u }, "watch: time zone not read; using UTC");
        return "UTC";
      });
      zones.set(u, zone);
    }),
  );
  return decideWatchDeliveries({
    thread: digest,
    watches: candidates,
    hasDm: new Set(dms.keys()),
    timeZoneOf: (u) => zones.get(u) ?? "UTC",
    now: deps.now?.() ?? Date.now(),
  });
}

export interface WatchDmDeps {
  watches: Pick<WatchStore, "get" | "list">;
  watchDms: Pick<
    WatchDmRefs,
    "claim" | "release" | "set" | "get" | "getGathered" | "replaceGathered" | "setGathered"
  >;
  watchPending: Pick<WatchPendingStore, "add" | "takeDue">;
  triage: Pick<TriageStore, "get">;
  sender: Pick<SlackSender, "openDm" | "post" | "update">;
  now?: () => number;
}

/** The metadata of a watch DM: the same as a channel card's (reactions.ts recognises both). */
export const watchDmMetadata = (d: Pick<ThreadDigest, "threadId" | "groupId">): DigestMetadata => ({
  event_type: DIGEST_EVENT_TYPE,
  event_payload: { thread_id: d.threadId, group_id: d.groupId },
});

export interface PreparedWatchDm {
  userId: string;
  watchId: string;
  digest: ThreadDigest;
  text: string;
  blocks: unknown[];
}

/**
 * A first match: claims the person's DM of the thread (two changes at once send one) and
 * renders it. Undefined when a DM of the thread is already there or on its way.
 */
export async function prepareWatchDm(
  deps: WatchDmDeps,
  d: Extract<WatchDelivery, { kind: "dm" }>,
  digest: ThreadDigest,
): Promise<PreparedWatchDm | undefined> {
  const now = deps.now?.() ?? Date.now();
  if (!(await deps.watchDms.claim(d.userId, digest.threadId, new Date(now)))) return undefined;
  // A fresh DM: nothing was pressed on it yet (its later edits read its triage).
  const watch = await deps.watches.get(d.userId, d.watchId);
  const { text, blocks } = renderWatchDm({ digest, watch, stillMatches: true });
  return { userId: d.userId, watchId: d.watchId, digest, text, blocks };
}

/** Sends a prepared watch DM and records where it is; a failure gives the claim back. */
export async function sendWatchDm(deps: WatchDmDeps, p: PreparedWatchDm): Promise<"sent"> {
  try {
    const channel = await deps.sender.openDm(p.userId);
    // Marked as a card of the thread, as channel cards are: a ✅ or 👀 on it triages the thread.
    const ts = await deps.sender.post({
      channel,
      text: p.text,
      blocks: p.blocks,
      metadata: watchDmMetadata(p.digest),
    });
    await deps.watchDms.set(p.userId, p.digest.threadId, {
      kind: "card",
      channel,
      ts,
      watchId: p.watchId,
      digest: p.digest,
      sentAtMs: deps.now?.() ?? Date.now(),
    });
    return "sent";
  } catch (err) {
    await deps.watchDms.release(p.userId, p.digest.threadId);
    throw err;
  }
}

export interface PreparedWatchDmEdit {
  userId: string;
  channel: string;
  ts: string;
  text: string;
  blocks: unknown[];
  /** Records what the DM now shows, after the edit. */
  record: () => Promise<void>;
}

/**
 * A later change of a thread the person has a DM of: the DM (its card, or its line in a
 * gathered DM) re-rendered with the thread's state now. Undefined while the DM is still being
 * sent, or when the stored DM is older than what it shows.
 */
export async function prepareWatchDmEdit(
  deps: WatchDmDeps,
  d: Extract<WatchDelivery, { kind: "edit" }>,
  digest: ThreadDigest,
): Promise<PreparedWatchDmEdit | undefined> {
  const ref = await deps.watchDms.get(d.userId, digest.threadId);
  if (!ref || ref.kind === "claimed") return undefined;
  if (ref.kind === "card") {
    // An older enrichment finishing late never overwrites a newer one (rule 2), nor one
    // without the sentiment the same enrichment's DM already shows.
    if (isOlder(digest, ref.digest)) return undefined;
    const [watch, triage] = await Promise.all([
      deps.watches.get(d.userId, ref.watchId),
      deps.triage.get(digest.threadId),
    ]);
    const { text, blocks } = renderWatchDm({ digest, watch, triage, stillMatches: d.stillMatches });
    return {
      userId: d.userId,
      channel: ref.channel,
      ts: ref.ts,
      text,
      blocks,
      record: () =>
        deps.watchDms.set(d.userId, digest.threadId, {
          ...ref,
          digest,
          ...(d.stillMatches ? {} : { stillMatches: false }),
        }),
    };
  }
  const gathered = await deps.watchDms.getGathered(d.userId, ref.ts);
  if (!gathered) return undefined;
  const lines = gathered.lines.map((l) =>
    l.digest.threadId === digest.threadId && l.digest.enrichedAt <= digest.enrichedAt ? { ...l, digest } : l,
  );
  const next = { ...gathered, lines };
  const watches = await deps.watches.list(d.userId);
  const { text, blocks } = renderGatheredWatchDm({
    ...next,
    watches: new Map(watches.map((w) => [w.id, w])),
  });
  return {
    userId: d.userId,
    channel: ref.channel,
    ts: ref.ts,
    text,
    blocks,
    record: () => deps.watchDms.replaceGathered(d.userId, ref.ts, next),
  };
}

/** Whether `next` is an older rendering of the thread than `shown` (by enrichment, then sentiment). */
function isOlder(next: ThreadDigest, shown: ThreadDigest): boolean {
  if (next.enrichedAt !== shown.enrichedAt) return next.enrichedAt < shown.enrichedAt;
  return Boolean(shown.sentiment) && !next.sentiment;
}

/**
 * The thread's triage changed (Mark handled, Assign or Follow, pressed or reacted on any card of
 * it): the person's DM of it, re-rendered from what it shows with the triage now. Undefined when
 * the person has no card DM of it (a gathered DM's lines show no triage).
 */
export async function prepareWatchDmTriage(
  deps: Pick<WatchDmDeps, "watches" | "watchDms" | "triage">,
  userId: string,
  threadId: string,
): Promise<PreparedWatchDmEdit | undefined> {
  const ref = await deps.watchDms.get(userId, threadId);
  if (ref?.kind !== "card") return undefined;
  const [watch, triage] = await Promise.all([
    deps.watches.get(userId, ref.watchId),
    deps.triage.get(threadId),
  ]);
  const { text, blocks } = renderWatchDm({
    digest: ref.digest,
    watch,
    triage,
    stillMatches: ref.stillMatches !== false,
  });
  return { userId, channel: ref.channel, ts: ref.ts, text, blocks, record: async () => undefined };
}

export async function sendWatchDmEdit(deps: WatchDmDeps, p: PreparedWatchDmEdit): Promise<"updated"> {
  await deps.sender.update({ channel: p.channel, ts: p.ts, text: p.text, blocks: p.blocks });
  await p.record();
  return "updated";
}

/**
 * A match for a daily DM or during quiet hours: kept for the person's gathered DM. The caller
 * queues the gathering job (`gatherJobId(userId, dueAtMs)`, delayed to `dueAtMs`): one job per
 * person and time, however many matches it gathers.
 */
export async function holdWatchMatch(
  deps: { watchPending: Pick<WatchPendingStore, "add">; now?: () => number },
  d: Extract<WatchDelivery, { kind: "daily" | "held" }>,
  digest: ThreadDigest,
): Promise<{ userId: string; dueAtMs: number }> {
  await deps.watchPending.add(d.userId, {
    digest,
    watchId: d.watchId,
    reason: d.kind,
    dueAtMs: d.dueAtMs,
    firstSeenMs: deps.now?.() ?? Date.now(),
  });
  return { userId: d.userId, dueAtMs: d.dueAtMs };
}

/** The gathering job's id: one per person and due time (BullMQ ids may not hold ':'). */
export const gatherJobId = (userId: string, dueAtMs: number): string =>
  `watch-gather|${userId}|${Math.round(dueAtMs)}`.replace(/:/g, "_");

export interface PreparedGatheredDm {
  userId: string;
  matches: PendingWatchMatch[];
  text: string;
  blocks: unknown[];
}

/** The gathering job at its time: the person's matches due by now, as one DM (undefined: none). */
export async function prepareGatheredWatchDm(
  deps: WatchDmDeps,
  userId: string,
): Promise<PreparedGatheredDm | undefined> {
  const now = deps.now?.() ?? Date.now();
  const matches = await deps.watchPending.takeDue(userId, now);
  if (matches.length === 0) return undefined;
  const watches = await deps.watches.list(userId);
  const reason = matches.some((m) => m.reason === "daily") ? "daily" : "held";
  const { text, blocks } = renderGatheredWatchDm({
    reason,
    sinceMs: Math.min(...matches.map((m) => m.firstSeenMs)),
    lines: matches.map((m) => ({ digest: m.digest, watchId: m.watchId })),
    watches: new Map(watches.map((w) => [w.id, w])),
  });
  return { userId, matches, text, blocks };
}

/** Sends the gathered DM and points each of its threads at it; a failure puts the matches back. */
export async function sendGatheredWatchDm(deps: WatchDmDeps, p: PreparedGatheredDm): Promise<"sent"> {
  let channel: string;
  let ts: string;
  try {
    channel = await deps.sender.openDm(p.userId);
    ts = await deps.sender.post({ channel, text: p.text, blocks: p.blocks });
  } catch (err) {
    await Promise.all(p.matches.map((m) => deps.watchPending.add(p.userId, m)));
    throw err;
  }
  const reason = p.matches.some((m) => m.reason === "daily") ? "daily" : "held";
  await deps.watchDms.setGathered(
    p.userId,
    channel,
    ts,
    {
      reason,
      sinceMs: Math.min(...p.matches.map((m) => m.firstSeenMs)),
      lines: p.matches.map((m) => ({ digest: m.digest, watchId: m.watchId })),
    },
    new Date(deps.now?.() ?? Date.now()),
  );
  return "sent";
}
