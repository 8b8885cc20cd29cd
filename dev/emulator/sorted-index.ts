/*
 * Items kept newest-first by an ISO date, re-sorted only after a change (not per request), so
 * that a page of a 20,000-thread group is a binary search and a slice.
 */
export type SortOrder = "asc" | "desc";

export interface Window<T> {
  data: T[];
  total: number;
}

export class SortedIndex<T extends { id: string }> {
  private readonly byId = new Map<string, T>();
  private sorted: T[] = [];
  private times: number[] = [];
  private dirty = false;

  constructor(private readonly dateOf: (item: T) => string) {}

  get size(): number {
    return this.byId.size;
  }

  get(id: string): T | undefined {
    return this.byId.get(id);
  }

  /** Adds or replaces (by id). */
  set(item: T): void {
    this.byId.set(item.id, item);
    this.dirty = true;
  }

  /** All items, newest first (ties: id descending, so the order is total and stable). */
  all(): readonly T[] {
    this.refresh();
    return this.sorted;
  }

  /** Items whose date is at or after `fromMs` (all when undefined), in `sort` order, one page of them. */
  window(fromMs: number | undefined, sort: SortOrder, offset: number, limit: number): Window<T> {
    this.refresh();
    const total = fromMs === undefined ? this.sorted.length : this.countAtOrAfter(fromMs);
    if (offset >= total) return { data: [], total };
    const end = Math.min(total, offset + limit);
    if (sort === "desc") return { data: this.sorted.slice(offset, end), total };
    // Ascending order over the first `total` (newest-first) items: index i maps to total-1-i.
    const data = this.sorted.slice(total - end, total - offset).reverse();
    return { data, total };
  }

  private refresh(): void {
    if (!this.dirty) return;
    const entries = [...this.byId.values()].map((item) => {
      const t = Date.parse(this.dateOf(item));
      // An unparsable date sorts as the oldest rather than breaking the comparator.
      return { item, t: Number.isNaN(t) ? Number.NEGATIVE_INFINITY : t };
    });
    const cmp = (x: number | string, y: number | string) => (x === y ? 0 : x < y ? 1 : -1);
    entries.sort((a, b) => cmp(a.t, b.t) || cmp(a.item.id, b.item.id));
    this.sorted = entries.map((e) => e.item);
    this.times = entries.map((e) => e.t);
    this.dirty = false;
  }

  /** Number of leading (newest) items with time >= fromMs. */
  private countAtOrAfter(fromMs: number): number {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.times[mid] ?? Number.NEGATIVE_INFINITY) >= fromMs) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
