/*
 * Validation of the common query parameters (spec 4.7). Pure: query text in, typed values or a
 * 400 message out.
 */
import type { SortOrder } from "./sorted-index.js";

export const EMULATOR_RANGES = ["last7Days", "last30Days", "last3Months", "last6Months", "allTime"] as const;
export type EmulatorRange = (typeof EMULATOR_RANGES)[number];
export const DEFAULT_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

export interface ListParams {
  page: number;
  limit: number;
  sort: SortOrder;
  range: EmulatorRange;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const WHOLE = /^\d+$/;

function wholeNumber(
  raw: string | null,
  name: string,
  min: number,
  max: number,
  dflt: number,
): Parsed<number> {
  if (raw === null) return { ok: true, value: dflt };
  const n = WHOLE.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    return { ok: false, error: `invalid ${name}: must be a whole number from ${min} to ${max}` };
  }
  return { ok: true, value: n };
}

export function parseListParams(
  q: URLSearchParams,
  opts: { withRange: boolean } = { withRange: true },
): Parsed<ListParams> {
  const page = wholeNumber(q.get("page"), "page", 1, Number.MAX_SAFE_INTEGER, 1);
  if (!page.ok) return page;
  const limit = wholeNumber(q.get("limit"), "limit", 1, MAX_PAGE_LIMIT, DEFAULT_LIMIT);
  if (!limit.ok) return limit;
  const sortRaw = q.get("sort");
  if (sortRaw !== null && sortRaw !== "asc" && sortRaw !== "desc") {
    return { ok: false, error: "invalid sort: must be asc or desc" };
  }
  const rangeRaw = opts.withRange ? q.get("range") : null;
  if (rangeRaw !== null && !(EMULATOR_RANGES as readonly string[]).includes(rangeRaw)) {
    return { ok: false, error: `invalid range: must be one of ${EMULATOR_RANGES.join(", ")}` };
  }
  return {
    ok: true,
    value: {
      page: page.value,
      limit: limit.value,
      sort: sortRaw ?? "desc",
      range: (rangeRaw as EmulatorRange | null) ?? "allTime",
    },
  };
}

/**
 * The earliest date a range includes, in ms (undefined: no lower bound). Days are 24-hour
 * periods back from now; months are calendar months (UTC) back from now, clamped to the
 * last day of a shorter month.
 */
export function rangeStart(range: EmulatorRange, now: Date): number | undefined {
  const day = 86_400_000;
  // Calendar months back, clamped to the month's last day (31 May -> 28 Feb, not 3 March).
  const monthsBack = (n: number) => {
    const y = now.getUTCFullYear();
    const m = now.getUTCMonth() - n;
    const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    const d = new Date(now.getTime());
    d.setUTCFullYear(y, m, Math.min(now.getUTCDate(), lastDay));
    return d.getTime();
  };
  switch (range) {
    case "last7Days":
      return now.getTime() - 7 * day;
    case "last30Days":
      return now.getTime() - 30 * day;
    case "last3Months":
      return monthsBack(3);
    case "last6Months":
      return monthsBack(6);
    case "allTime":
      return undefined;
  }
}

export function pagination(page: number, limit: number, total: number) {
  return { page, limit, total, totalPages: Math.ceil(total / limit) };
}
