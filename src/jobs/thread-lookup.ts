import type { InsightClient } from "../insight/client.js";
import { isLastPage } from "../insight/paginate.js";
import type { Thread } from "../insight/schemas.js";

/** Groups whose newest pages are kept at most (about 300 threads each). */
const MAX_GROUPS = 100;

export interface ThreadLookupOptions {
  /** How many of the newest pages to read before giving up (rule 3). */
  maxPages?: number;
  /** How long a fetched page set answers later lookups. */
  cacheMs?: number;
  now?: () => number;
}

interface GroupSnapshot {
  fetchedAt: number;
  byId: Map<string, Thread>;
  pagesRead: number;
  exhausted: boolean;
}

/**
 * Finds a thread's enrichment (sentiment, keywords, question fields) in the thread listing,
 * which is the only place the interface offers it: there is no single-thread endpoint.
 *
 * Events that arrive together share one fetch (single flight per group), and a short cache
 * answers the rest; a thread not on the pages read so far extends the read up to `maxPages`.
 */
export class ThreadLookup {
  private readonly snapshots = new Map<string, GroupSnapshot>();
  private readonly inflight = new Map<string, Promise<GroupSnapshot>>();
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
    let snap = this.snapshots.get(groupId);
    // A listing read before the enrichment happened cannot show it.
    const tooOld = (s: GroupSnapshot) =>
      this.now() - s.fetchedAt > this.cacheMs ||
      (opts.notBeforeMs !== undefined && s.fetchedAt < opts.notBeforeMs);
    if (opts.fresh || !snap || tooOld(snap)) {
      snap = await this.read(groupId, undefined, opts.fresh === true);
    }
    while (!snap.byId.has(threadId) && !snap.exhausted && snap.pagesRead < this.maxPages) {
      snap = await this.read(groupId, snap, false);
    }
    return snap.byId.get(threadId);
  }

  /** Forgets everything cached (tests, and after a long outage). */
  clear(): void {
    this.snapshots.clear();
  }

  private read(groupId: string, extend: GroupSnapshot | undefined, fresh: boolean): Promise<GroupSnapshot> {
    const key = `${groupId}#${extend ? extend.pagesRead + 1 : 1}${fresh ? "#fresh" : ""}`;
    const existing = this.inflight.get(key);
    if (existing) return existing;
    const p = (async () => {
      const page = (extend?.pagesRead ?? 0) + 1;
      // The listing can only show what happened before it was asked for.
      const askedAt = this.now();
      this.requests++;
      const res = await this.client.listThreads(groupId, {
        page,
        limit: 100,
        sort: "desc",
        range: "allTime",
      });
      const snap: GroupSnapshot = extend
        ? { ...extend, byId: new Map(extend.byId) }
        : { fetchedAt: askedAt, byId: new Map(), pagesRead: 0, exhausted: false };
      for (const t of res.data) snap.byId.set(t.id, t);
      snap.pagesRead = page;
      snap.exhausted = isLastPage(res, page, 100);
      // Re-inserting keeps the map in least-recently-read order; the oldest go past the cap.
      this.snapshots.delete(groupId);
      this.snapshots.set(groupId, snap);
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
