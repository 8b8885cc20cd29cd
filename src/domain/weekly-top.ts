/**
 * The `limit` best items seen so far under `better(a, b)` (true when a ranks above b), kept
 * in order. Memory stays at `limit` items however many are offered; insertion is O(limit),
 * which for the handful a summary shows is cheaper than a heap.
 */
export class TopN<T> {
  readonly #items: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly better: (a: T, b: T) => boolean,
  ) {}

  offer(item: T): void {
    if (this.limit <= 0) return;
    const last = this.#items.at(-1);
    if (this.#items.length >= this.limit && last !== undefined && !this.better(item, last)) return;
    let i = this.#items.length;
    while (i > 0) {
      const prev = this.#items[i - 1];
      if (prev === undefined || !this.better(item, prev)) break;
      i--;
    }
    this.#items.splice(i, 0, item);
    if (this.#items.length > this.limit) this.#items.pop();
  }

  /** Best first. */
  items(): T[] {
    return [...this.#items];
  }
}
