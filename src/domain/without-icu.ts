/**
 * Number formatting and ordering for the realtime path without `Intl`: a process's first
 * `Intl` number or date format maps ICU's data for good (5-7 MB of RSS, measured), and its
 * first `localeCompare` the collation data (3 MB). Weekly summaries, which need time zones,
 * still use `Intl`.
 */

/** "1,204", "-3.142": a number exactly as `Intl.NumberFormat("en-US")` writes it. */
export function formatNumber(n: number): string {
  // Past 1e21 JavaScript writes exponents; counts never get there, so Intl may then.
  if (!Number.isFinite(n) || Math.abs(n) >= 1e21) return new Intl.NumberFormat("en-US").format(n);
  // Intl rounds the shortest decimal that reads back as `n` (what String gives) half away from
  // zero, to at most 3 decimals. Below 1e-6 String writes an exponent: that rounds to 0.
  const text = String(Math.abs(n));
  const [whole = "0", fraction = ""] = text.includes("e") ? ["0"] : text.split(".");
  let units = BigInt(whole + fraction.slice(0, 3).padEnd(3, "0"));
  if ((fraction[3] ?? "0") >= "5") units += 1n;
  const digits = units.toString().padStart(4, "0");
  const grouped = digits.slice(0, -3).replace(/\B(?=(\d{3})+$)/g, ",");
  const decimals = digits.slice(-3).replace(/0+$/, "");
  const sign = n < 0 || Object.is(n, -0) ? "-" : "";
  return `${sign}${grouped}${decimals ? `.${decimals}` : ""}`;
}

/** Orders ids and ISO timestamps by code unit: what they need, where `localeCompare` loads ICU. */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
