import type { ThreadDigest } from "../domain/thread-digest.js";
import type { InsightClient } from "../insight/client.js";
import { isLastPage } from "../insight/paginate.js";
import type { Thread } from "../insight/schemas.js";

/** Groups whose newest pages are kept at most (a few hundred threads each, more during a burst). */
const MAX_GROUPS = 100;
const PAGE_SIZE = 100;
/**
 * The first read of a walk for a thread that has just changed (an enrichment, a new message):
 * it is at or near the top of the listing, newest activity first, and most walks end there. A
 * fifth of a page is a fifth of the parsing (bench:steady's profile at 100 deliveries a second:
 * the listing's download and parse were a quarter of the busy time); a walk that must go on
 * reads full pages from the first.
 */
const FIRST_READ_OF_A_CHANGE = 20;
/** The deepest a burst may take one walk of a group's listing (5,000 threads). */
const MAX_BURST_PAGES = 50;
/** Lookups of a group within this window (and the one before) make its burst... */
const BURST_WINDOW_MS = 30_000;
/** ...from this many on. */
const BURST_LOOKUPS = 50;
/** Pages read at once past `maxPages`, so a deep walk does not take one round trip a page. */
const PAGES_AT_ONCE = 4;
/**
 * Threads whose latest counts are remembered from the pages read (about 100 bytes each): more
 * than a busy group's threads of one counts window (20 new threads a second for 3 minutes).
 */
const MAX_SEEN_COUNTS = 20_000;
/**
 * A listing read counts as after a message only when asked for this much later than the
 * message was routed: the two times may come from two processes' clocks.
 */
const CLOCK_MARGIN_MS = 1_000;

/** What a counts edit shows of a thread: its counts and last activity, from the listing. */
export type ThreadCounts = Pick<ThreadDigest, "messageCount" | "participantCount" | "lastMessageDate">;

const countsOf = (t: Thread): ThreadCounts => {
  const participants = (t as { participantCount?: unknown }).participantCount;
  return {
    messageCount: t.messageCount,
    participantCount: typeof participants === "number" ? participants : undefined,
    lastMessageDate: t.lastMessageDate,
  };
};

export interface ThreadLookupOptions {
  /** How many of the newest pages to read before giving up (rule 3), outside bursts. */
  maxPages?: number;
  /** How long a fetched page set answers later lookups. */
  cacheMs?: number;
  now?: () => number;
}

interface GroupSnapshot {
  /** When its first page was asked for: it cannot show anything that happened later. */
  fetchedAt: number;
  byId: Map<string, Thread>;
  /** Full pages read (0 after a first read of a change alone). */
  pagesRead: number;
  exhausted: boolean;
}

/**
 * Finds a thread's enrichment (sentiment, keywords, question fields) in the thread listing,
 * which is the only place the interface offers it: there is no single-thread endpoint.
 *
 * One walk of the listing at a time per group, shared by every lookup it can answer: a
 * lookup joins the walk in flight when that walk was asked for after its enrichment, and
 * otherwise waits for the next walk, which starts when the current one ends and serves
 * everything that gathered meanwhile (so a burst costs a few walks, never one per event). A
 * walk reads one page further only while some lookup has not found its thread, up to
 * `maxPages`, or during a burst (many lookups of the group within a minute) up to 5,000
 * threads deep, several pages at a time (each enrichment pushes the earlier ones one place
 * down the newest-first listing).
 */
export class ThreadLookup {
  private readonly snapshots = new Map<string, GroupSnapshot>();
  private readonly inflight = new Map<string, Promise<GroupSnapshot>>();
  /** The first-page read in flight per group, and the one queued behind it. */
  private readonly walking = new Map<string, { askedAt: number; p: Promise<GroupSnapshot> }>();
  private readonly queued = new Map<string, Promise<GroupSnapshot>>();
  private readonly lookups = new Map<string, { bucket: number; n: number; prev: number }>();
  private readonly maxPages: number;
  private readonly cacheMs: number;
  private readonly now: () => number;
  /** Each thread's counts in the newest page read that showed it, and when that page was asked for. */
  private readonly seen = new Map<string, { counts: ThreadCounts; askedAt: number }>();
  /** Listing requests made, for tests and benchmarks. */
  requests = 0;

  constructor(
    private readonly client: Pick<InsightClient, "listThreads">,
    opts: ThreadLookupOptions = {},
  ) {
    this.maxPages = opts.maxPages ?? 3;
    this.cacheMs = opts.cacheMs ?? 5_000;
    this.now = opts.now ?? Date.now;
  }

  /** The listing entry of a thread, or undefined when it is not on the newest pages. */
  async find(
    groupId: string,
    threadId: string,
    opts: { fresh?: boolean; notBeforeMs?: number } = {},
  ): Promise<Thread | undefined> {
    const limit = this.pageLimit(groupId);
    const notBefore = opts.notBeforeMs ?? -Infinity;
    let snap = this.snapshots.get(groupId);
    // A listing asked for before the enrichment happened cannot show it.
    const usable = (s: GroupSnapshot) => this.now() - s.fetchedAt <= this.cacheMs && s.fetchedAt >= notBefore;
    if (opts.fresh || !snap || !usable(snap)) {
      // Asked about a change (fresh, or enriched at a known time): the thread is near the top.
      const change = opts.fresh === true || opts.notBeforeMs !== undefined;
      snap = await this.firstPage(groupId, notBefore, opts.fresh === true, change);
    }
    while (!snap.byId.has(threadId) && !snap.exhausted && snap.pagesRead < limit) {
      const pages = snap.pagesRead < this.maxPages ? 1 : Math.min(PAGES_AT_ONCE, limit - snap.pagesRead);
      snap = await this.read(groupId, snap, pages);
    }
    return snap.byId.get(threadId);
  }

  /**
   * A thread's counts for its counts edit, as the listing shows them after its last message was
   * routed (`lastMessageAt`). A thread with new messages is at the top of the newest-first
   * listing then, so the pages read for other deliveries have most likely shown it since: those
   * counts are used. Otherwise, or when the time is not known, the listing is read afresh; by
   * the end of a 3-minute window a busy group has pushed the thread far down (20 new threads a
   * second: 3,600 threads, 36 pages a walk).
   */
  async countsOf(
    groupId: string,
    threadId: string,
    lastMessageAt?: number,
  ): Promise<ThreadCounts | undefined> {
    if (lastMessageAt !== undefined) {
      const since = lastMessageAt + CLOCK_MARGIN_MS;
      const seen = this.seen.get(seenKey(groupId, threadId));
      if (seen && seen.askedAt >= since) return seen.counts;
    }
    const t = await this.find(groupId, threadId, { fresh: true });
    return t ? countsOf(t) : undefined;
  }

  /** Forgets everything cached (tests, and after a long outage). */
  clear(): void {
    this.snapshots.clear();
    this.lookups.clear();
    this.seen.clear();
  }

  /** `maxPages`, or during a burst of lookups of this group, as deep as a burst may push a thread. */
  private pageLimit(groupId: string): number {
    const bucket = Math.floor(this.now() / BURST_WINDOW_MS);
    const c = this.lookups.get(groupId);
    const next =
      c?.bucket === bucket
        ? { bucket, n: c.n + 1, prev: c.prev }
        : { bucket, n: 1, prev: c?.bucket === bucket - 1 ? c.n : 0 };
    this.lookups.delete(groupId); // re-inserted: least recently looked up first
    this.lookups.set(groupId, next);
    for (const oldest of this.lookups.keys()) {
      if (this.lookups.size <= MAX_GROUPS) break;
      this.lookups.delete(oldest);
    }
    // In a burst the worker may run behind the deliveries: a thread is then pushed down by
    // every enrichment received since, not only by those looked up so far.
    return next.n + next.prev >= BURST_LOOKUPS ? MAX_BURST_PAGES : this.maxPages;
  }

  /**
   * A first page asked for at or after `notBefore`: the walk in flight when it qualifies,
   * else the next walk, queued behind the one in flight and shared by all who wait for it.
   */
  private firstPage(
    groupId: string,
    notBefore: number,
    fresh: boolean,
    change: boolean,
  ): Promise<GroupSnapshot> {
    const current = this.walking.get(groupId);
    if (!current) return this.startWalk(groupId, change);
    if (!fresh && current.askedAt >= notBefore) return current.p;
    let next = this.queued.get(groupId);
    if (!next) {
      next = current.p
        .catch(() => undefined)
        .then(() => {
          this.queued.delete(groupId);
          return this.startWalk(groupId, change);
        });
      this.queued.set(groupId, next);
    }
    return next;
  }

  private startWalk(groupId: string, change: boolean): Promise<GroupSnapshot> {
    const askedAt = this.now();
    const p = this.read(groupId, undefined, change ? FIRST_READ_OF_A_CHANGE : PAGE_SIZE);
    const entry = { askedAt, p };
    this.walking.set(groupId, entry);
    const done = () => {
      if (this.walking.get(groupId) === entry) this.walking.delete(groupId);
    };
    p.then(done, done);
    return p;
  }

  /**
   * A walk's first read (`extend` undefined: page 1 of `size`), or `size` more full pages of
   * it after those it has read.
   */
  private read(groupId: string, extend: GroupSnapshot | undefined, size: number): Promise<GroupSnapshot> {
    const first = (extend?.pagesRead ?? 0) + 1;
    const pages = extend ? size : 1;
    const limit = extend ? PAGE_SIZE : size;
    // Pages of one walk are shared; a newer walk reads its own.
    const key = extend
      ? `${groupId}#${extend.fetchedAt}#${first}+${pages}`
      : `${groupId}#first#${this.now()}`;
    const existing = this.inflight.get(key);
    if (existing) return existing;
    const p = (async () => {
      // The listing can only show what happened before it was asked for.
      const askedAt = this.now();
      const numbers = Array.from({ length: pages }, (_, i) => first + i);
      this.requests += pages;
      const answers = await Promise.all(
        numbers.map((page) =>
          this.client.listThreads(groupId, { page, limit, sort: "desc", range: "allTime" }),
        ),
      );
      const snap: GroupSnapshot = extend
        ? { ...extend, byId: new Map(extend.byId) }
        : { fetchedAt: askedAt, byId: new Map(), pagesRead: 0, exhausted: false };
      for (const [i, res] of answers.entries()) {
        if (snap.exhausted) break;
        for (const t of res.data) {
          snap.byId.set(t.id, t);
          this.noteSeen(groupId, t, askedAt);
        }
        if (limit === PAGE_SIZE) snap.pagesRead = first + i;
        snap.exhausted = isLastPage(res, first + i, limit);
      }
      // A newer walk's pages are never replaced by an older walk's.
      const kept = this.snapshots.get(groupId);
      if (!kept || kept.fetchedAt <= snap.fetchedAt) {
        // Re-inserting keeps the map in least-recently-read order; the oldest go past the cap.
        this.snapshots.delete(groupId);
        this.snapshots.set(groupId, snap);
      }
      for (const oldest of this.snapshots.keys()) {
        if (this.snapshots.size <= MAX_GROUPS) break;
        this.snapshots.delete(oldest);
      }
      return snap;
    })().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  /** Remembers a thread's counts from a page asked for at `askedAt`, unless a newer page showed it. */
  private noteSeen(groupId: string, t: Thread, askedAt: number): void {
    const key = seenKey(groupId, t.id);
    const had = this.seen.get(key);
    if (had && had.askedAt > askedAt) return;
    // Re-inserted: the least recently seen go first past the cap.
    this.seen.delete(key);
    this.seen.set(key, { counts: countsOf(t), askedAt });
    if (this.seen.size > MAX_SEEN_COUNTS) {
      const oldest = this.seen.keys().next();
      if (!oldest.done) this.seen.delete(oldest.value);
    }
  }
}

const seenKey = (groupId: string, threadId: string): string => `${groupId}\u0000${threadId}`;
