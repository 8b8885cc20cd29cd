import { MAX_LIMIT, type Page } from "./schemas.js";

/** Walks use the largest page the service allows: fewest requests. */
export const WALK_LIMIT = MAX_LIMIT;
/** A hard stop for a service that keeps answering full pages (a million items at 100 a page). */
export const MAX_WALK_PAGES = 10_000;

/**
 * Whether `page` (the answer to request number `requested`) is the last one: the service says
 * so through `totalPages`, or, without pagination, the page came back shorter than asked.
 * Items dropped by the schema still count as sent, so they do not end the walk early.
 */
export function isLastPage(page: Page<unknown>, requested: number, limit: number): boolean {
  const sent = page.data.length + page.dropped;
  if (sent === 0) return true;
  if (page.pagination) return requested >= page.pagination.totalPages;
  return sent < limit;
}

export type WalkStop = "last_page" | "repeated_page" | "page_cap";

/**
 * Every non-empty page from page 1 on. Ends at the last page, on an empty page, when the
 * service answers the same items again (it ignored `page`), or at MAX_WALK_PAGES: never loops
 * forever. `onStop` learns why a walk ended early, for a warning.
 */
export async function* walkPages<T extends { id: string }>(
  fetchPage: (page: number, limit: number) => Promise<Page<T>>,
  opts: { limit?: number; maxPages?: number; onStop?: (why: WalkStop, page: number) => void } = {},
): AsyncGenerator<Page<T>, void, undefined> {
  const limit = opts.limit ?? WALK_LIMIT;
  const maxPages = opts.maxPages ?? MAX_WALK_PAGES;
  let previous: string | undefined;
  for (let n = 1; ; n++) {
    const page = await fetchPage(n, limit);
    if (page.data.length + page.dropped === 0) return;
    const signature = page.data.map((t) => t.id).join("\u0000");
    if (signature !== "" && signature === previous) {
      opts.onStop?.("repeated_page", n);
      return;
    }
    previous = signature;
    yield page;
    if (isLastPage(page, n, limit)) return;
    if (n >= maxPages) {
      opts.onStop?.("page_cap", n);
      return;
    }
  }
}
