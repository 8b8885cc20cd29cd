import { sentimentChange, type SentimentChange } from "./weekly-compare.js";
import { busiestDays, type BusiestDays } from "./weekly-days.js";
import type { WeekStats } from "./weekly-stats.js";
import type { WeekWindow } from "./weekly-window.js";

/** One chat group's week, ready to render. Names and titles are untrusted text. */
export interface GroupWeek {
  groupId: string;
  groupName: string;
  stats: WeekStats;
  /** The week before, or undefined when it could not be read (see `previousError`). */
  previous: WeekStats | undefined;
  previousError?: string | undefined;
  change: SentimentChange;
  busiest: BusiestDays;
}

export type GroupFailure = "forbidden" | "not_found" | "unavailable";

export type GroupOutcome =
  | { kind: "summary"; week: GroupWeek }
  | { kind: "empty"; groupId: string; groupName: string }
  | { kind: "failed"; groupId: string; groupName: string; reason: GroupFailure };

/** A channel's weekly summary: one outcome per subscribed group, in subscription order. */
export interface WeeklyReport {
  channelId: string;
  window: WeekWindow;
  /** IANA zone the dates are shown in (the schedule's). */
  timeZone: string;
  groups: GroupOutcome[];
}

/** Joins what was read about one group into its outcome. Pure. */
export function groupOutcome(input: {
  groupId: string;
  groupName: string;
  stats: WeekStats;
  previous: WeekStats | undefined;
  previousError?: string | undefined;
  /** Messages per UTC day for the days the week touches. */
  messageActivity: Record<string, number>;
  /** The UTC days the week touches (keys of the activity counts). */
  days: string[];
}): GroupOutcome {
  const { groupId, groupName, stats, previous } = input;
  if (stats.threads === 0) return { kind: "empty", groupId, groupName };
  const inWeek = new Set(input.days);
  const threadsByDay = Object.fromEntries(
    Object.entries(stats.threadsByUtcDay).filter(([d]) => inWeek.has(d)),
  );
  return {
    kind: "summary",
    week: {
      groupId,
      groupName,
      stats,
      previous,
      previousError: input.previousError,
      change: sentimentChange(stats.sentiment, previous?.sentiment),
      busiest: busiestDays(input.messageActivity, threadsByDay),
    },
  };
}

/** True when no group had a thread this week and none failed: the one-line summary. */
export const isQuietWeek = (r: WeeklyReport): boolean => r.groups.every((g) => g.kind === "empty");
