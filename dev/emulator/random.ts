/** A small seeded PRNG (mulberry32): the same seed gives the same data on every run. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function createRandom(seed: number): Random {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[int(0, items.length - 1)] as T;
    },
    chance: (p: number) => next() < p,
  };
}

/** ObjectId-like 24-hex identifiers: a fixed prefix, a kind byte and a counter, so ids are stable. */
export const ID_KINDS = { community: 1, group: 2, thread: 3, message: 4, member: 5 } as const;
export function objectId(kind: keyof typeof ID_KINDS, n: number): string {
  return "6650c0de" + ID_KINDS[kind].toString(16).padStart(2, "0") + n.toString(16).padStart(14, "0");
}
