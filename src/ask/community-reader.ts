import type { CallOptions, InsightClient } from "../insight/client.js";
import { WALK_LIMIT } from "../insight/paginate.js";
import type { Page, Range, SearchMessageHit, SearchThreadHit, Thread } from "../insight/schemas.js";
import { timeOf } from "../domain/weekly-window.js";

/*
 * What the assistant reads of the service, bounded and shared: a group's threads back to a
 * date (the listing, newest first, stopped as soon as it is past that date) and the threads a
 * topic's search finds. Questions asked together share one fetch, and for a short while later
 * ones reuse it: a group of thousands of threads costs a handful of pages once, not per question.
 */

export interface CommunityReaderOptions {
  /** How long a read answers later questions; default 60 s. */
  cacheMs?: number;
  /** Pages of 100 read at most per group (the newest threads); default 100 (10,000 threads). */
  maxPages?: number;
  /** Pages in flight at once per group; default 4. */
  pagesAtOnce?: number;
  /** Search pages of 100 hits read at most per question; default 3. */
  searchPages?: number;
  /** Attempts per request (the client's backoff in between); default 2: a person is waiting. */
  maxAttempts?: number;
  /** Per read (all its pages); default 8 s. */
  timeoutMs?: number;
  now?: () => number;
}

export interface GroupThreads {
  /** Threads whose last activity is at or after the date asked for (and a few older ones). */
  threads: Thread[];
  /** The page cap was reached before the date: older threads of the period were not read. */
  capped: boolean;
}

export interface TopicThreads {
  /** Ids of the threads the search found (by a thread hit or one of its messages), best first. */
  ids: string[];
  /** The search's answer was cut at the page cap: more threads may be about the topic. */
  capped: boolean;
}

type Reads = Pick<InsightClient, "listThreads" | "search">;

interface Cached<T> {
  at: number;
  /** For listings: the earliest date the read covers. */
  from: number;
  value: Promise<T>;
}

const DAY_MS = 86_400_000;
/** Slack between our clock and the service's when choosing its `range`. */
const CLOCK_MARGIN_MS = 60 * 60_000;
/** The service's ranges by their shortest span (calendar months are at least 89 and 181 days). */
const SERVICE_RANGES: ReadonlyArray<[Range, number]> = [
  ["last7Days", 7 * DAY_MS],
  ["last30Days", 30 * DAY_MS],
  ["last3Months", 89 * DAY_MS],
  ["last6Months", 181 * DAY_MS],
];
const MAX_CACHED = 64;

/** The narrowest of the service's ranges that surely includes `from`. */
export function serviceRangeFor(from: number, now: number): Range {
  const need = now - from + CLOCK_MARGIN_MS;
  return SERVICE_RANGES.find(([, span]) => span >= need)?.[0] ?? "allTime";
}

export class CommunityReader {
  readonly #client: Reads;
  readonly #o: Required<Omit<CommunityReaderOptions, "now">>;
  readonly #now: () => number;
  readonly #listings = new Map<string, Cached<GroupThreads>>();
  readonly #searches = new Map<string, Cached<TopicThreads>>();

  constructor(client: Reads, o: CommunityReaderOptions = {}) {
    this.#client = client;
    this.#o = {
      cacheMs: o.cacheMs ?? 60_000,
      maxPages: o.maxPages ?? 100,
      pagesAtOnce: o.pagesAtOnce ?? 4,
      searchPages: o.searchPages ?? 3,
      maxAttempts: o.maxAttempts ?? 2,
      timeoutMs: o.timeoutMs ?? 8_000,
    };
    this.#now = o.now ?? Date.now;
  }

  /** The group's threads last active at or after `from`: shared with reads in flight or fresh. */
  threadsSince(groupId: string, from: number): Promise<GroupThreads> {
    const now = this.#now();
    const hit = this.#listings.get(groupId);
    if (hit && now - hit.at < this.#o.cacheMs && hit.from <= from) return hit.value;
    const value = this.#readListing(groupId, from, now);
    this.#remember(this.#listings, groupId, { at: now, from, value });
    return value;
  }

  /** The threads a search for `topic` finds in the group, best first. */
  topicThreads(groupId: string, topic: string): Promise<TopicThreads> {
    const now = this.#now();
    const key = `${groupId}\u0000${topic.trim().toLowerCase()}`;
    const hit = this.#searches.get(key);
    if (hit && now - hit.at < this.#o.cacheMs) return hit.value;
    const value = this.#readSearch(groupId, topic.trim());
    this.#remember(this.#searches, key, { at: now, from: 0, value });
    return value;
  }

  #remember<T>(map: Map<string, Cached<T>>, key: string, entry: Cached<T>): void {
    map.delete(key);
    map.set(key, entry);
    // A failed read is not kept: the next question asks again.
    entry.value.catch(() => {
      if (map.get(key) === entry) map.delete(key);
    });
    while (map.size > MAX_CACHED) {
      const oldest = map.keys().next().value;
      if (oldest === undefined) break;
      map.delete(oldest);
    }
  }

  #call(): CallOptions {
    return { maxAttempts: this.#o.maxAttempts, signal: AbortSignal.timeout(this.#o.timeoutMs) };
  }

  /**
   * Newest first (`sort=desc`), pages fetched a few at a time, until a page ends before `from`.
   * The sorted field is not shown: the stop is taken only while the pages do come in descending
   * order of last activity; otherwise every page (up to the cap) is read.
   */
  async #readListing(groupId: string, from: number, now: number): Promise<GroupThreads> {
    const range = serviceRangeFor(from, now);
    const call = this.#call();
    const limit = WALK_LIMIT;
    const fetch = (page: number): Promise<Page<Thread>> =>
      this.#client.listThreads(groupId, { range, sort: "desc", page, limit }, call);
    const byId = new Map<string, Thread>();
    let newest = Number.POSITIVE_INFINITY;
    let descending = true;
    let pastFrom = false;
    const take = (p: Page<Thread>) => {
      for (const t of p.data) {
        const last = timeOf(t.lastMessageDate);
        if (Number.isNaN(last) || last > newest) descending = false;
        else newest = last;
        if (!byId.has(t.id)) byId.set(t.id, t);
      }
      if (descending && newest < from) pastFrom = true;
    };
    const first = await fetch(1);
    take(first);
    const sent = (p: Page<Thread>) => p.data.length + p.dropped;
    const total = first.pagination?.totalPages;
    let lastFull = sent(first) >= limit;
    let page = 2;
    const cap = this.#o.maxPages;
    while (!pastFrom && lastFull && page <= cap && (total === undefined || page <= total)) {
      const until = Math.min(cap, total ?? page, page + this.#o.pagesAtOnce - 1);
      const numbers = Array.from({ length: until - page + 1 }, (_, i) => page + i);
      const pages = await Promise.all(numbers.map(fetch));
      for (const p of pages) take(p);
      lastFull = sent(pages.at(-1) ?? first) >= limit;
      page = until + 1;
    }
    const more = total === undefined ? lastFull : page <= total;
    return { threads: [...byId.values()], capped: !pastFrom && more && page > cap };
  }

  async #readSearch(groupId: string, topic: string): Promise<TopicThreads> {
    const call = this.#call();
    const limit = WALK_LIMIT;
    const hits: Array<{ id: string; score: number | undefined; order: number }> = [];
    let capped = false;
    for (let page = 1; page <= this.#o.searchPages; page++) {
      const r = await this.#client.search(groupId, topic, { page, limit }, call);
      const items: Array<SearchThreadHit | SearchMessageHit> = [...r.threads, ...r.messages];
      for (const h of items) {
        const id = h.kind === "thread" ? h.id : h.threadId;
        if (id) hits.push({ id, score: h.score, order: hits.length });
      }
      if (items.length < limit) break;
      if (page === this.#o.searchPages) capped = true;
    }
    // Threads and messages come back in separate lists: the scores put them in one order.
    hits.sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity) || a.order - b.order);
    return { ids: [...new Set(hits.map((h) => h.id))], capped };
  }
}
