/*
 * The time frame of a weekly summary: the seven calendar days before the run day, in the
 * schedule's time zone, and the seven before them for the comparison. `weekly now` answers
 * someone asking now: its seven days end with today, up to this moment. Days are calendar days
 * of that zone (23 or 25 hours long across a daylight-saving change), never rolling 24-hour
 * windows, so the header, the busiest days and the chart name the same days. Pure; no I/O.
 */

export const DAY_MS = 86_400_000;
export const WEEK_DAYS = 7;

export interface WeekWindow {
  /** The zone whose calendar days these are (the schedule's). */
  timeZone: string;
  /**
   * True for `weekly now`: the week is today and the six days before, up to the run time.
   * False for a scheduled run: the seven calendar days before the run day.
   */
  untilNow: boolean;
  /** Exclusive end of this week: the first instant of the run day, or the run time itself (`untilNow`). */
  end: number;
  /** First instant of this week (midnight, 7 calendar days before the run day). */
  start: number;
  /** First instant of the week before. */
  prevStart: number;
  /** The seven days of this week as "2026-03-02", oldest first. */
  days: string[];
  /** Eight boundaries: the first instant of each day of this week, then `end`. */
  dayStarts: number[];
  /** The same for the week before (its last boundary is `start`). */
  prevDayStarts: number[];
  /**
   * The run time minus 7 × 24 h: where the service's rolling `last7Days` listing begins.
   * Threads of [start, listedFrom) are read from `last30Days`.
   */
  listedFrom: number;
}

export interface YMD {
  y: number;
  m: number;
  d: number;
}

const partsFormat = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormat.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      hourCycle: "h23",
    });
    partsFormat.set(timeZone, f);
  }
  return f;
}

/** The wall clock of an instant in a zone. */
function wallClock(ms: number, timeZone: string): YMD & { h: number; min: number; s: number } {
  const p: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(ms)) {
    if (part.type !== "literal") p[part.type] = Number(part.value);
  }
  return {
    y: p.year ?? 1970,
    m: p.month ?? 1,
    d: p.day ?? 1,
    h: p.hour ?? 0,
    min: p.minute ?? 0,
    s: p.second ?? 0,
  };
}

/** The zone's offset from UTC at an instant, in ms (Berlin in winter: +3,600,000). */
export function offsetAt(ms: number, timeZone: string): number {
  const w = wallClock(ms, timeZone);
  const asUtc = Date.UTC(w.y, w.m - 1, w.d, w.h, w.min, w.s);
  return asUtc - (ms - (ms % 1000));
}

/** The calendar day of an instant in a zone. */
export function dayOf(ms: number, timeZone: string): YMD {
  const w = wallClock(ms, timeZone);
  return { y: w.y, m: w.m, d: w.d };
}

const keyOf = (v: YMD) => `${v.y}-${String(v.m).padStart(2, "0")}-${String(v.d).padStart(2, "0")}`;
/** `day` plus `n` calendar days (n may be negative). */
export const addDays = (v: YMD, n: number): YMD => {
  const t = new Date(Date.UTC(v.y, v.m - 1, v.d + n));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
};

/**
 * The first instant of a calendar day in a zone: local midnight, or the first instant after
 * it when a daylight-saving change skips midnight (Santiago, Beirut).
 */
export function startOfDay(v: YMD, timeZone: string): number {
  const wall = Date.UTC(v.y, v.m - 1, v.d);
  let t = wall - offsetAt(wall, timeZone);
  t = wall - offsetAt(t, timeZone);
  // Midnight skipped, or an offset read on the wrong side of a change: step to the day's start.
  const k = keyOf(v);
  while (keyOf(dayOf(t, timeZone)) < k) t += 15 * 60_000;
  while (keyOf(dayOf(t - 1, timeZone)) >= k) t -= 15 * 60_000;
  return t;
}

/**
 * The week before the run day `at` in `timeZone` (see WeekWindow); with `untilNow`, the week
 * that ends with the day of `at`, up to `at` (today's threads included).
 */
export function weekWindow(at: Date | number, timeZone = "UTC", o: { untilNow?: boolean } = {}): WeekWindow {
  const now = typeof at === "number" ? at : at.getTime();
  const untilNow = o.untilNow === true;
  // Calendar days count from the day after the last one shown: tomorrow when today is included.
  const runDay = untilNow ? addDays(dayOf(now, timeZone), 1) : dayOf(now, timeZone);
  const starts = (from: number) =>
    Array.from({ length: WEEK_DAYS + 1 }, (_, i) => startOfDay(addDays(runDay, from + i), timeZone));
  const dayStarts = starts(-WEEK_DAYS);
  const prevDayStarts = starts(-2 * WEEK_DAYS);
  return {
    timeZone,
    untilNow,
    // Today's bucket runs to midnight (a thread stamped a moment ahead still counts); the week
    // as said ends now.
    end: untilNow ? now : (dayStarts[WEEK_DAYS] ?? now),
    start: dayStarts[0] ?? now,
    prevStart: prevDayStarts[0] ?? now,
    days: Array.from({ length: WEEK_DAYS }, (_, i) => keyOf(addDays(runDay, i - WEEK_DAYS))),
    dayStarts,
    prevDayStarts,
    listedFrom: now - WEEK_DAYS * DAY_MS,
  };
}

/**
 * Which day an instant falls in, given the boundaries of a week (`dayStarts`): 0 = oldest;
 * undefined outside the week.
 */
export function dayIndex(ms: number, dayStarts: readonly number[]): number | undefined {
  if (!Number.isFinite(ms)) return undefined;
  for (let i = 0; i < dayStarts.length - 1; i++) {
    const from = dayStarts[i] ?? Number.NaN;
    const to = dayStarts[i + 1] ?? Number.NaN;
    if (ms >= from && ms < to) return i;
  }
  return undefined;
}

/** Milliseconds of an ISO date, NaN when absent or unreadable. */
export const timeOf = (iso: string | undefined | null): number => (iso ? Date.parse(iso) : Number.NaN);

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const utcOfKey = (day: string) => new Date(`${day}T00:00:00.000Z`);

/** "Mon 2": the chart's label of a day key. */
export function dayLabel(day: string): string {
  const d = utcOfKey(day);
  if (Number.isNaN(d.getTime())) return day;
  return `${WEEKDAYS[d.getUTCDay()] ?? ""} ${d.getUTCDate()}`;
}

/** "Mon, Mar 2": the text's name of a day key. */
export function formatDay(day: string): string {
  const d = utcOfKey(day);
  if (Number.isNaN(d.getTime())) return day;
  return `${WEEKDAYS[d.getUTCDay()] ?? ""}, ${MONTHS[d.getUTCMonth()] ?? ""} ${d.getUTCDate()}`;
}

/** "Mar 2 – Mar 8, 2026" (or "Dec 29, 2025 – Jan 4, 2026"): the first and last day of a week, both included. */
export function describeDays(days: readonly string[]): string {
  const first = days[0];
  const last = days.at(-1);
  if (first === undefined || last === undefined) return "";
  const md = (k: string) => formatDay(k).slice(5);
  const [fy, ly] = [first.slice(0, 4), last.slice(0, 4)];
  return fy === ly ? `${md(first)} – ${md(last)}, ${ly}` : `${md(first)}, ${fy} – ${md(last)}, ${ly}`;
}
