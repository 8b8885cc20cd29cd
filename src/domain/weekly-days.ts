export interface DayCount {
  /** UTC calendar day, "2026-03-02". */
  day: string;
  count: number;
}

export interface BusiestDays {
  /** "messages": message activity seen through webhooks; "threads": threads by last activity. */
  source: "messages" | "threads";
  days: DayCount[];
  total: number;
}

/** The `n` days with the highest counts, highest first (ties: earlier day first); zeros left out. */
export function topDays(counts: Record<string, number>, n = 3): DayCount[] {
  return Object.entries(counts)
    .filter(([, c]) => Number.isFinite(c) && c > 0)
    .map(([day, count]) => ({ day, count }))
    .sort((a, b) => b.count - a.count || a.day.localeCompare(b.day))
    .slice(0, n);
}

/**
 * The busiest days of a week. Message activity (counted per UTC day from `chatmessage-crud`
 * deliveries) is the better measure; when none was recorded (message webhooks not set up),
 * threads per day of last activity stand in, and `source` says which was used.
 */
export function busiestDays(
  messageActivity: Record<string, number>,
  threadsByDay: Record<string, number>,
  n = 3,
): BusiestDays {
  const messages = topDays(messageActivity, n);
  if (messages.length > 0) {
    return { source: "messages", days: messages, total: sum(messageActivity) };
  }
  return { source: "threads", days: topDays(threadsByDay, n), total: sum(threadsByDay) };
}

const sum = (r: Record<string, number>) =>
  Object.values(r).reduce((a, b) => a + (Number.isFinite(b) && b > 0 ? b : 0), 0);
