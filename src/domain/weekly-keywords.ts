const capitals = (s: string) => s.replace(/[^\p{Lu}]/gu, "").length;

/**
 * Which spelling of a keyword is shown: the one with fewest capitals, then the first in code
 * point order. Any rule that does not depend on arrival order would do; pages arrive in any
 * order, and the same week must give the same summary.
 */
const preferred = (a: string, b: string) => {
  const d = capitals(a) - capitals(b);
  return d !== 0 ? d < 0 : a < b;
};

/**
 * Whether a keyword can be shown as a theme: never a Slack control sequence or mention
 * (`<!channel>`, `<@U123>`, `@here`), whatever the service extracted from a message.
 */
export function isThemeWord(keyword: string): boolean {
  if (/[<>]/.test(keyword)) return false;
  return !/^[@!#]/.test(keyword.trim());
}

/** A keyword is a recurring theme of a week when at least this many threads have it. */
export const MIN_THEME_THREADS = 2;

/**
 * Counts in how many threads each keyword occurs, case-insensitively, in bounded memory.
 *
 * Up to `capacity` distinct keywords are counted exactly. Past twice that, the counter keeps
 * the `capacity` most frequent and lowers every count by the largest one dropped (the
 * Misra–Gries summary): any keyword in more than threads/capacity threads survives, counts
 * become lower bounds, and `approximate` says so. A week of community chat rarely comes near.
 */
export class KeywordCounter {
  readonly #capacity: number;
  readonly #counts = new Map<string, { keyword: string; count: number }>();
  #approximate = false;

  constructor(capacity = 5_000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error("capacity must be a positive integer");
    this.#capacity = capacity;
  }

  /** One thread's keywords; repeats within the thread count once. */
  addThread(keywords: readonly string[]): void {
    const seen = new Set<string>();
    for (const raw of keywords) {
      const keyword = raw.replace(/\s+/g, " ").trim();
      const key = keyword.toLowerCase();
      if (key === "" || !isThemeWord(keyword)) continue;
      const entry = this.#counts.get(key);
      if (!entry) this.#counts.set(key, { keyword, count: 1 });
      else {
        if (!seen.has(key)) entry.count++;
        if (preferred(keyword, entry.keyword)) entry.keyword = keyword;
      }
      seen.add(key);
    }
    if (this.#counts.size > 2 * this.#capacity) this.#prune();
  }

  get approximate(): boolean {
    return this.#approximate;
  }

  get size(): number {
    return this.#counts.size;
  }

  /** The `n` most frequent, highest first; ties in alphabetical order (stable output). */
  top(n: number): { keyword: string; count: number }[] {
    return [...this.#counts.values()]
      .sort((a, b) => b.count - a.count || a.keyword.localeCompare(b.keyword))
      .slice(0, n)
      .map((e) => ({ ...e }));
  }

  #prune(): void {
    const sorted = [...this.#counts.values()].map((e) => e.count).sort((a, b) => b - a);
    const cut = sorted[this.#capacity] ?? 0;
    for (const [key, e] of this.#counts) {
      e.count -= cut;
      if (e.count <= 0) this.#counts.delete(key);
    }
    this.#approximate = true;
  }
}
