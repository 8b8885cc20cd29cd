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

  /** Forgets everything cached (tests, and after a long outage). */
  clear(): void {
    this.snapshots.clear();
    this.lookups.clear();
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
        for (const t of res.data) snap.byId.set(t.id, t);
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
}
