import { isLastPage, MAX_WALK_PAGES, WALK_LIMIT } from "../insight/paginate.js";
import type { Page } from "../insight/schemas.js";

export type FetchPage<T> = (page: number, limit: number, signal: AbortSignal) => Promise<Page<T>>;

export interface StreamOptions {
  /** Pages in flight at once (and so in memory at once); default 4. */
  concurrency?: number;
  limit?: number;
  maxPages?: number;
  signal?: AbortSignal;
}

export interface StreamResult {
  /** Pages fetched. */
  pages: number;
  /** Items handed to `onPage` (repeats included). */
  items: number;
  /** The service's `total` on page 1, when it sent pagination. */
  total: number | undefined;
}

const sent = (p: Page<unknown>) => p.data.length + p.dropped;
const signature = (p: Page<unknown>) =>
  p.data.map((x) => (x && typeof x === "object" && "id" in x ? String(x.id) : "")).join("\u0000");

/**
 * Every page of a listing, fetched `concurrency` at a time and handed to `onPage` as each
 * arrives (not in page order: the reducers are order-free). Page 1 tells how many pages
 * there are; a listing that grew meanwhile (the last page came back full) is followed page
 * by page to its end; without pagination it is walked page by page. Memory holds at most
 * `concurrency` pages. The first failure cancels the requests in flight and is thrown.
 */
export async function streamPages<T>(
  fetchPage: FetchPage<T>,
  onPage: (page: Page<T>) => void,
  o: StreamOptions = {},
): Promise<StreamResult> {
  const limit = o.limit ?? WALK_LIMIT;
  const maxPages = o.maxPages ?? MAX_WALK_PAGES;
  const concurrency = Math.max(1, o.concurrency ?? 4);
  const ac = new AbortController();
  const onAbort = () => ac.abort(o.signal?.reason);
  o.signal?.addEventListener("abort", onAbort, { once: true });
  const result: StreamResult = { pages: 0, items: 0, total: undefined };
  const take = (p: Page<T>) => {
    result.pages++;
    result.items += p.data.length;
    onPage(p);
  };

  try {
    o.signal?.throwIfAborted();
    const first = await fetchPage(1, limit, ac.signal);
    take(first);
    result.total = first.pagination?.total;
    if (isLastPage(first, 1, limit)) return result;

    let next = 2;
    let lastFull = true;
    const totalPages = first.pagination?.totalPages;
    if (totalPages !== undefined) {
      const until = Math.min(totalPages, maxPages);
      let failed: unknown;
      const worker = async () => {
        while (failed === undefined && next <= until) {
          const n = next++;
          try {
            const page = await fetchPage(n, limit, ac.signal);
            if (failed !== undefined) return;
            take(page);
            if (n === until) lastFull = sent(page) >= limit;
          } catch (err) {
            if (failed === undefined) failed = err;
            ac.abort(err);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(0, until - 1)) }, worker));
      if (failed !== undefined) throw failed;
      if (!lastFull) return result;
    }
    // No pagination, or the listing grew while it was read: one page at a time to the end,
    // stopping should the service answer the same page again (it ignored `page`).
    let previous = signature(first);
    for (; next <= maxPages; next++) {
      const page = await fetchPage(next, limit, ac.signal);
      if (sent(page) === 0 || signature(page) === previous) return result;
      previous = signature(page);
      take(page);
      if (sent(page) < limit) return result;
    }
    return result;
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
  }
}
