import { isInsightError } from "../insight/errors.js";
import type { InsightClient } from "../insight/client.js";
import type { Page, Range, Thread } from "../insight/schemas.js";
import type { Logger } from "../log.js";
import { groupOutcome, type GroupFailure, type GroupOutcome } from "../domain/weekly-report.js";
import { WeekAccumulator } from "../domain/weekly-stats.js";
import type { WeekWindow } from "../domain/weekly-window.js";
import { readPreviousWeek } from "./previous-week.js";
import { streamPages, type FetchPage } from "./stream-pages.js";

export interface SummarizeDeps {
  client: Pick<InsightClient, "listThreads">;
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
 * One group's week, in calendar days of the window's zone, in one pass per listing: every
 * page of `last7Days` (a rolling 7 × 24 h window), then `last30Days` from where that ends, for
 * the first hours of the week that the rolling window misses and for the week before. Each
 * thread counts once, in the week and day of its last activity. Insight errors on `last7Days`
 * are thrown (the caller decides between retrying and naming the group as unreadable); a
 * failure on `last30Days` loses the comparison and says from when the week was counted.
 */
export async function summarizeGroup(
  deps: SummarizeDeps,
  group: GroupRef,
  window: WeekWindow,
  o: SummarizeOptions = {},
): Promise<{ outcome: GroupOutcome; cost: SummarizeCost }> {
  const stream = { concurrency: o.concurrency ?? 4, signal: o.signal };
  const current = new WeekAccumulator({ dayStarts: window.dayStarts });
  const read = await streamPages(
    threadPages(deps.client, group.groupId, "last7Days"),
    (page) => {
      for (const t of page.data) current.add(t);
    },
    stream,
  );
  const cost: SummarizeCost = { pages: read.pages, previousPages: 0, previousMethod: "skipped" };

  const before = new WeekAccumulator({ dayStarts: window.prevDayStarts });
  let previousError: string | undefined;
  try {
    const prev = await readPreviousWeek(
      threadPages(deps.client, group.groupId, "last30Days"),
      window,
      read.total ?? read.items,
      (t) => {
        current.add(t);
        before.add(t);
      },
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
      "weekly summary: could not read the older listing; posting without the comparison",
    );
  }

  const stats = current.result();
  if (stats.threads === 0 && previousError === undefined) {
    return { outcome: { kind: "empty", groupId: group.groupId, groupName: group.groupName }, cost };
  }
  return {
    outcome: groupOutcome({
      groupId: group.groupId,
      groupName: group.groupName,
      stats,
      previous: previousError ? undefined : before.result(),
      previousError,
      days: window.days,
      countedFrom: previousError && window.listedFrom > window.start ? window.listedFrom : undefined,
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
