import { isInsightError } from "../insight/errors.js";
import type { InsightClient } from "../insight/client.js";
import type { Page, Range, Thread } from "../insight/schemas.js";
import type { Logger } from "../log.js";
import { groupOutcome, type GroupFailure, type GroupOutcome } from "../domain/weekly-report.js";
import { WeekAccumulator } from "../domain/weekly-stats.js";
import { utcDaysCovering, type WeekWindow } from "../domain/weekly-window.js";
import { readPreviousWeek } from "./previous-week.js";
import { streamPages, type FetchPage } from "./stream-pages.js";

export interface SummarizeDeps {
  client: Pick<InsightClient, "listThreads">;
  /** Messages per UTC day (services.health.activity). */
  activity(groupId: string, days: string[]): Promise<Record<string, number>>;
  logger: Logger;
}

export interface SummarizeOptions {
  /** Thread pages in flight at once, per group; default 4. */
  concurrency?: number;
  signal?: AbortSignal;
}

export interface GroupRef {
  groupId: string;
  groupName: string;
}

/** What reading one group cost; for logs and the benchmark. */
export interface SummarizeCost {
  pages: number;
  previousPages: number;
  previousMethod: "skip-ahead" | "full" | "failed" | "skipped";
}

const threadPages =
  (client: SummarizeDeps["client"], groupId: string, range: Range): FetchPage<Thread> =>
  (page, limit, signal): Promise<Page<Thread>> =>
    client.listThreads(groupId, { range, sort: "desc", page, limit }, { signal });

/**
 * One group's week: every page of `last7Days` folded into counts, the week before read from
 * `last30Days` and filtered by date, and the message activity per day. Insight errors are
 * thrown (the caller decides between retrying and naming the group as unreadable); a failure
 * to read the previous week only loses the comparison.
 */
export async function summarizeGroup(
  deps: SummarizeDeps,
  group: GroupRef,
  window: WeekWindow,
  o: SummarizeOptions = {},
): Promise<{ outcome: GroupOutcome; cost: SummarizeCost }> {
  const stream = { concurrency: o.concurrency ?? 4, signal: o.signal };
  const current = new WeekAccumulator({ weekStart: window.start });
  const read = await streamPages(
    threadPages(deps.client, group.groupId, "last7Days"),
    (page) => {
      for (const t of page.data) current.add(t);
    },
    stream,
  );
  const cost: SummarizeCost = { pages: read.pages, previousPages: 0, previousMethod: "skipped" };
  const stats = current.result();
  if (stats.threads === 0) {
    return { outcome: { kind: "empty", groupId: group.groupId, groupName: group.groupName }, cost };
  }

  const before = new WeekAccumulator({
    weekStart: window.prevStart,
    filter: { from: window.prevStart, to: window.start },
  });
  let previousError: string | undefined;
  try {
    const prev = await readPreviousWeek(
      threadPages(deps.client, group.groupId, "last30Days"),
      window,
      read.total ?? stats.threads,
      (t) => before.add(t),
      stream,
    );
    cost.previousPages = prev.pages;
    cost.previousMethod = prev.method;
  } catch (err) {
    if (o.signal?.aborted) throw err;
    previousError = isInsightError(err) ? err.code : "error";
    cost.previousMethod = "failed";
    deps.logger.warn(
      { groupId: group.groupId, err },
      "weekly summary: could not read the previous week; posting without the comparison",
    );
  }

  const days = utcDaysCovering(window.start, window.end);
  const messageActivity = await deps.activity(group.groupId, days);
  return {
    outcome: groupOutcome({
      groupId: group.groupId,
      groupName: group.groupName,
      stats,
      previous: previousError ? undefined : before.result(),
      previousError,
      messageActivity,
      days,
    }),
    cost,
  };
}

/**
 * How an Insight error on a group's listing shows in the summary, or undefined when the job
 * should rather be retried (the service may answer later). 401 is never "the group": the
 * caller alerts operators and fails the job.
 */
export function failureOf(err: unknown, finalAttempt: boolean): GroupFailure | undefined {
  if (!isInsightError(err)) return finalAttempt ? "unavailable" : undefined;
  if (err.code === "forbidden") return "forbidden";
  if (err.code === "not_found") return "not_found";
  if (err.code === "unauthorized" || err.code === "invalid_params") return undefined;
  return finalAttempt ? "unavailable" : undefined;
}
