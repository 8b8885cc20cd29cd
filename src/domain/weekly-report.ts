import { sentimentChange, type SentimentChange } from "./weekly-compare.js";
import { busiestDays, type DayCount } from "./weekly-days.js";
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
  /** Busiest calendar days, by threads' last activity (the chart's counts). */
  busiest: DayCount[];
  /**
   * Set when the threads of the week's first hours could not be read (the older listing
   * failed): the week's counts start at this instant instead of at the first midnight.
   */
  countedFrom?: number | undefined;
  /** Threads of the week marked handled in this channel; undefined when unknown. */
  handled?: HandledInWeek | undefined;
}

export interface HandledInWeek {
  /** How many of the week's threads are marked handled in this channel. */
  count: number;
  /** Which (so they leave "Still open"). */
  ids: ReadonlySet<string>;
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
  /** IANA zone of the week's calendar days and of every date shown (the schedule's). */
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
  /** The week's calendar days (WeekWindow.days), oldest first. */
  days: readonly string[];
  countedFrom?: number | undefined;
  handled?: HandledInWeek | undefined;
}): GroupOutcome {
  const { groupId, groupName, stats, previous } = input;
  if (stats.threads === 0) return { kind: "empty", groupId, groupName };
  return {
    kind: "summary",
    week: {
      groupId,
      groupName,
      stats,
      previous,
      previousError: input.previousError,
      change: sentimentChange(stats.sentiment, previous?.sentiment),
      busiest: busiestDays(input.days, stats.threadsByDay),
      countedFrom: input.countedFrom,
      handled: input.handled,
    },
  };
}

/** True when no group had a thread this week and none failed: the one-line summary. */
export const isQuietWeek = (r: WeeklyReport): boolean => r.groups.every((g) => g.kind === "empty");
