/*
 * The time frame of a weekly summary. The service's `last7Days` is a rolling 7 × 24 h window
 * ending now, so the summary uses the same: seven 24-hour "days" counted back from the run,
 * and the seven before them for the comparison. Pure; no I/O.
 */

export const DAY_MS = 86_400_000;
export const WEEK_DAYS = 7;

export interface WeekWindow {
  /** The run time (exclusive end of this week), ms since epoch. */
  end: number;
  /** end − 7 days: first instant of this week. */
  start: number;
  /** start − 7 days: first instant of the week before. */
  prevStart: number;
}

export function weekWindow(end: Date | number): WeekWindow {
  const e = typeof end === "number" ? end : end.getTime();
  return { end: e, start: e - WEEK_DAYS * DAY_MS, prevStart: e - 2 * WEEK_DAYS * DAY_MS };
}

/**
 * Which of the seven days after `weekStart` an instant falls in (0 = oldest), or undefined
 * outside [weekStart, weekStart + 7 days).
 */
export function dayIndex(ms: number, weekStart: number): number | undefined {
  if (!Number.isFinite(ms) || ms < weekStart) return undefined;
  const i = Math.floor((ms - weekStart) / DAY_MS);
  return i < WEEK_DAYS ? i : undefined;
}

/** Milliseconds of an ISO date, NaN when absent or unreadable. */
export const timeOf = (iso: string | undefined | null): number => (iso ? Date.parse(iso) : Number.NaN);

/** "2026-03-02": the UTC calendar day of an instant. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Every UTC calendar day that [start, end) touches, oldest first: the keys of the per-day
 * message activity counts (which are kept by UTC day).
 */
export function utcDaysCovering(start: number, end: number): string[] {
  const days: string[] = [];
  const first = Date.UTC(
    new Date(start).getUTCFullYear(),
    new Date(start).getUTCMonth(),
    new Date(start).getUTCDate(),
  );
  for (let t = first; t < end; t += DAY_MS) days.push(utcDay(t));
  return days;
}

/**
 * Short labels for the seven days of a week ("Mon 2"), read in `timeZone` at the middle of
 * each 24-hour day, so a run at 09:00 labels "Mon 09:00 → Tue 09:00" as Monday.
 */
export function dayLabels(weekStart: number, timeZone: string): string[] {
  const fmt = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", day: "numeric" });
  return Array.from({ length: WEEK_DAYS }, (_, i) => {
    const parts = fmt.formatToParts(new Date(weekStart + i * DAY_MS + DAY_MS / 2));
    const weekday = parts.find((p) => p.type === "weekday")?.value ?? "";
    const day = parts.find((p) => p.type === "day")?.value ?? "";
    return `${weekday} ${day}`;
  });
}

/** "Mar 2 – Mar 9, 2026" for a window, in `timeZone`. */
export function describeRange(start: number, end: number, timeZone: string): string {
  const md = new Intl.DateTimeFormat("en-US", { timeZone, month: "short", day: "numeric" });
  const year = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric" });
  return `${md.format(start)} – ${md.format(end)}, ${year.format(end)}`;
}
