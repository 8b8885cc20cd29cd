export interface DayCount {
  /** Calendar day in the summary's zone, "2026-03-02". */
  day: string;
  count: number;
}

/**
 * The `n` busiest days of a week: threads per calendar day of last activity, the very counts
 * the chart draws (so the text and the chart always agree). Highest first, ties: earlier day
 * first; days without threads left out.
 */
export function busiestDays(days: readonly string[], threadsByDay: readonly number[], n = 3): DayCount[] {
  return days
    .map((day, i) => ({ day, count: threadsByDay[i] ?? 0 }))
    .filter((d) => Number.isFinite(d.count) && d.count > 0)
    .sort((a, b) => b.count - a.count || a.day.localeCompare(b.day))
    .slice(0, n);
}
