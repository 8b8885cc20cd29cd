import { WALK_LIMIT, MAX_WALK_PAGES } from "../insight/paginate.js";
import type { Thread } from "../insight/schemas.js";
import { timeOf, type WeekWindow } from "../domain/weekly-window.js";
import { streamPages, type FetchPage, type StreamOptions } from "./stream-pages.js";

export interface PreviousWeekRead {
  pages: number;
  /** "skip-ahead": read only the pages around the previous week; "full": every page of the range. */
  method: "skip-ahead" | "full";
}

/**
 * Feeds `onThread` every thread of `last30Days` whose last activity may fall in the week
 * before `window`, or in the first hours of this week that the rolling `last7Days` listing
 * (from `window.listedFrom`) misses (the caller filters by date and drops repeats).
 *
 * The listing is asked newest first (`sort=desc`). The field it sorts on is not shown, so the
 * shortcut is verified, never assumed: when the pages do come in descending order of
 * `lastMessageDate`, the first `thisWeekTotal` items are the threads of `last7Days` (already
 * read) and are skipped, less one page of margin for threads that moved
 * meanwhile, and reading stops at the first thread older than the previous week; for 20,000
 * threads that is 2 requests instead of 200. If the order is not descending, or the first
 * page read already starts before `listedFrom` (something may have been skipped), every page of
 * `last30Days` is read instead.
 */
export async function readPreviousWeek(
  fetchPage: FetchPage<Thread>,
  window: WeekWindow,
  thisWeekTotal: number | undefined,
  onThread: (t: Thread) => void,
  o: StreamOptions = {},
): Promise<PreviousWeekRead> {
  const limit = o.limit ?? WALK_LIMIT;
  const maxPages = o.maxPages ?? MAX_WALK_PAGES;
  const batch = Math.max(1, o.concurrency ?? 4);
  const startPage = thisWeekTotal ? Math.max(1, Math.floor(thisWeekTotal / limit)) : 1;
  const ac = new AbortController();
  const onAbort = () => ac.abort(o.signal?.reason);
  o.signal?.addEventListener("abort", onAbort, { once: true });
  let pages = 0;
  try {
    let newest = Number.POSITIVE_INFINITY;
    let verified = true;
    outer: for (let p = startPage; p <= maxPages && verified; p += batch) {
      const numbers = Array.from({ length: Math.min(batch, maxPages - p + 1) }, (_, i) => p + i);
      const got = await Promise.all(numbers.map((n) => fetchPage(n, limit, ac.signal))).catch((err) => {
        ac.abort(err); // the other requests of the batch are not needed any more
        throw err;
      });
      for (const [i, page] of got.entries()) {
        const n = p + i;
        pages++;
        if (page.data.length + page.dropped === 0) return { pages, method: "skip-ahead" };
        for (const [j, t] of page.data.entries()) {
          const ms = timeOf(t.lastMessageDate);
          if (Number.isNaN(ms) || ms > newest) verified = false;
          else newest = ms;
          if (n === startPage && j === 0 && startPage > 1 && ms < window.listedFrom) verified = false;
          onThread(t);
        }
        if (!verified) break outer;
        if (newest < window.prevStart) return { pages, method: "skip-ahead" };
        const lastPage = page.pagination ? n >= page.pagination.totalPages : page.data.length < limit;
        if (lastPage) return { pages, method: "skip-ahead" };
      }
    }
    if (verified) return { pages, method: "skip-ahead" };
    const full = await streamPages(fetchPage, (page) => page.data.forEach(onThread), {
      ...o,
      signal: ac.signal,
    });
    return { pages: pages + full.pages, method: "full" };
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
  }
}
