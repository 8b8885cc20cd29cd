// The arithmetic of bench:steady, kept pure so that it is tested (test/bench/steady-figures.test.ts):
// percentiles of acknowledgement times, a cost per delivery, Redis's CPU over the bare floor,
// key families, and each target checked against the run's own figures.

/** The p-th percentile (0-100) of `xs` by nearest rank; NaN for none. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? NaN;
}

/** `total` spread over `n` (deliveries, cards, seconds); NaN when there are none. */
export const per = (total: number, n: number): number => (n > 0 ? total / n : NaN);

/**
 * Redis's CPU over a window less what a bare redis-server with no client spent in the same
 * run (its own timers: `hz`, the clients' cron), per second of floor × the window; never
 * below 0 (ticks of 10 ms make a short window's figures coarse).
 */
export function overFloor(rawMs: number, floorMsPerSecond: number, windowSeconds: number): number {
  return Math.max(0, rawMs - floorMsPerSecond * windowSeconds);
}

/**
 * A key's family: the key without the app's prefix, each part that names one thing (it has a
 * digit, or is a long id) written `*`. `bench-1:state:ref:C0B:th-12` -> `state:ref:*:*`.
 */
export function keyFamily(key: string, prefix: string): string {
  const rest = key.startsWith(`${prefix}:`) ? key.slice(prefix.length + 1) : key;
  return rest
    .split(":")
    .map((part) => (/\d/.test(part) || part.length > 24 ? "*" : part))
    .join(":");
}

/** Sums `bytes` by family, biggest first. */
export function byFamily(
  keys: readonly { key: string; bytes: number }[],
  prefix: string,
): { family: string; keys: number; bytes: number }[] {
  const sums = new Map<string, { keys: number; bytes: number }>();
  for (const k of keys) {
    const f = keyFamily(k.key, prefix);
    const s = sums.get(f) ?? { keys: 0, bytes: 0 };
    s.keys += 1;
    s.bytes += k.bytes;
    sums.set(f, s);
  }
  return [...sums].map(([family, s]) => ({ family, ...s })).sort((a, b) => b.bytes - a.bytes);
}

/** One target of issue 38, checked against a figure of this run. */
export interface Verdict {
  target: string;
  figure: string;
  pass: boolean;
}

/** At most `limit` (a cost): passes when `value` is a number no greater. */
export const atMost = (target: string, value: number, limit: number, unit: string): Verdict => ({
  target,
  figure: Number.isFinite(value) ? `${value.toFixed(2)} ${unit}` : "-",
  pass: Number.isFinite(value) && value <= limit,
});

/** At least `limit` (a rate or ratio): passes when `value` is a number no smaller. */
export const atLeast = (target: string, value: number, limit: number, unit: string): Verdict => ({
  target,
  figure: Number.isFinite(value) ? `${value.toFixed(2)} ${unit}` : "-",
  pass: Number.isFinite(value) && value >= limit,
});

/** `a` within `factor` × `b` (e.g. 1,000 workspaces' idle CPU within 1.5 × one's). */
export function within(target: string, a: number, b: number, factor: number): Verdict {
  const ratio = b > 0 ? a / b : a > 0 ? Infinity : 1;
  return { target, figure: `${Number.isFinite(ratio) ? ratio.toFixed(2) : "∞"}×`, pass: ratio <= factor };
}

/** Figures as the tables print them: `-` for none. */
export const fmt = (n: number | undefined, d = 1): string =>
  n === undefined || !Number.isFinite(n)
    ? "-"
    : n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
