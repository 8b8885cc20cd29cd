import { setTimeout as sleepFor } from "node:timers/promises";
import { UnrecoverableError, type Job } from "bullmq";
import type { RedisClient as Redis } from "../store/redis.js";
import type { ChannelThrottle } from "../slack/outbound/channel-throttle.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import type { Logger } from "../log.js";
import { isInsightError } from "../insight/errors.js";
import type { GroupOutcome, HandledInWeek, WeeklyReport } from "../domain/weekly-report.js";
import { weekWindow } from "../domain/weekly-window.js";
import type { SlackSender } from "../slack/outbound/slack-sender.js";
import { refusedBySlack } from "../jobs/refused-by-slack.js";
import { sendInTurn } from "../slack/outbound/send-in-turn.js";
import { renderWeeklyReport } from "../slack/render/weekly-summary.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import { renderSentimentChart, sentimentChartInput, type SentimentChartInput } from "./chart.js";
import { RunGuard } from "./run-guard.js";
import type { WeeklyJob } from "./schedules.js";
import { failureOf, summarizeGroup, type SummarizeDeps } from "./summarize-group.js";

export interface WeeklyRunDeps extends SummarizeDeps {
  redis: Redis;
  /** The run guard's key of one (channel, period). */
  runKey(channelId: string, period: string): string;
  subscriptions: Pick<SubscriptionStore, "forChannel" | "pauseChannel">;
  sender: Pick<SlackSender, "post" | "upload">;
  throttle: Pick<ChannelThrottle, "reserve" | "pushBack">;
  ops: Pick<OpsNotifier, "alert">;
  reportInsightError(err: unknown): Promise<void>;
  /**
   * Which of these threads are marked handled in this channel (the triage store); optional:
   * without it the summary has no "Marked handled here" line.
   */
  handled?: (channelId: string, threadIds: string[]) => Promise<Set<string>>;
  /** Replaceable so tests can make the chart fail. */
  renderChart?: (input: SentimentChartInput) => Promise<Buffer>;
  /** Thread pages in flight per group; default 4. */
  concurrency?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export type WeeklyOutcome =
  | { status: "posted"; messages: number; charts: number; groups: number }
  | { status: "duplicate"; claim: "busy" | "done" }
  | { status: "no_subscriptions" };

/** Slack 429s waited out inside one run before the job gives up and retries later. */
const MAX_RATE_LIMIT_WAITS = 5;

/**
 * The week a run belongs to: a scheduled run is named by the day its tick falls on in the
 * schedule's zone (two jobs for the same tick, or a schedule edited to a later hour the same
 * day, are the same summary); a `weekly now` is its own.
 */
export function runPeriod(job: Pick<Job<WeeklyJob>, "id" | "data" | "opts" | "timestamp">): string {
  if (job.data.trigger !== "schedule") return `now-${job.id ?? "unknown"}`;
  const tick = job.opts.prevMillis ?? job.timestamp;
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: job.data.timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(tick);
}

/**
 * One channel's weekly summary: read every followed group's week (subscriptions in any
 * delivery mode, `summary` included), render one message, post it and then each group's
 * chart in its thread, each part once. Insight failures that may pass are retried by the queue (nothing has
 * been posted yet); on the last attempt, and always for 403/404, the group is named in the
 * summary instead. A chart that cannot be drawn or uploaded is left out.
 */
export async function runWeeklySummary(job: Job<WeeklyJob>, deps: WeeklyRunDeps): Promise<WeeklyOutcome> {
  const now = deps.now ?? Date.now;
  const { channelId } = job.data;
  const log = deps.logger.child({ jobId: job.id, channel: channelId, trigger: job.data.trigger });
  const period = runPeriod(job);
  const guard = new RunGuard(deps.redis, deps.runKey(channelId, period), job.id ?? period, { now });
  const claim = await guard.claim();
  if (claim !== "claimed") {
    log.info({ period, claim }, "weekly summary already posted or being posted for this period; skipping");
    return { status: "duplicate", claim };
  }

  const subs = (await deps.subscriptions.forChannel(channelId)).filter((s) => !s.paused);
  if (subs.length === 0) {
    log.info("weekly summary skipped: the channel follows no chat group");
    await guard.finish();
    return { status: "no_subscriptions" };
  }

  // A scheduled run covers the 7 calendar days before its day in the schedule's zone (its
  // tick's day, so a job that starts late still summarises the week it was for); `weekly now`
  // answers someone asking now: the last 7 days up to this moment, today included.
  const window =
    job.data.trigger === "schedule"
      ? weekWindow(job.opts.prevMillis ?? now(), job.data.timeZone)
      : weekWindow(now(), job.data.timeZone, { untilNow: true });
  const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  const groups: GroupOutcome[] = [];
  for (const s of subs) {
    try {
      const { outcome, cost } = await summarizeGroup(
        deps,
        { groupId: s.groupId, groupName: s.groupName },
        window,
        { concurrency: deps.concurrency },
      );
      log.info({ groupId: s.groupId, kind: outcome.kind, ...cost }, "weekly summary: group read");
      if (outcome.kind === "summary") {
        outcome.week.handled = await handledIn(deps, log, channelId, outcome.week.stats.threadIds);
      }
      groups.push(outcome);
    } catch (err) {
      const reason = failureOf(err, finalAttempt);
      log.warn(
        { groupId: s.groupId, err, reason },
        reason
          ? "weekly summary: group could not be read; naming it in the summary"
          : "weekly summary: retrying later",
      );
      if (!reason) {
        await deps.reportInsightError(err);
        if (isInsightError(err) && err.code === "invalid_params") throw new UnrecoverableError(err.message);
        throw err;
      }
      groups.push({ kind: "failed", groupId: s.groupId, groupName: s.groupName, reason });
    }
  }

  const report: WeeklyReport = { channelId, window, timeZone: job.data.timeZone, groups };
  const message = renderWeeklyReport(report);
  const done = await guard.parts();
  let posted = 0;
  let charts = 0;
  let ts = done.get(message.part);
  if (ts === undefined) {
    const sent = await send(deps, log, channelId, "summary", () =>
      deps.sender.post({ channel: channelId, text: message.text, blocks: message.blocks }),
    );
    ts = sent;
    await guard.markPart(message.part, ts);
    posted++;
  }
  // The charts go in the summary's thread: one top-level post per channel and week.
  for (const groupId of message.chartGroupIds) {
    const part = `chart:${groupId}`;
    if (done.has(part)) continue;
    const fileId = await postChart(deps, log, report, groupId, ts);
    await guard.markPart(part, fileId ?? "failed");
    if (fileId) charts++;
  }
  await guard.finish();
  log.info({ period, messages: posted, charts }, "weekly summary posted");
  return { status: "posted", messages: posted, charts, groups: groups.length };
}

/** Which of the week's threads are handled in this channel; undefined when unknown. */
async function handledIn(
  deps: WeeklyRunDeps,
  log: Logger,
  channelId: string,
  threadIds: string[],
): Promise<HandledInWeek | undefined> {
  if (!deps.handled) return undefined;
  try {
    const marked = await deps.handled(channelId, threadIds);
    const ids = new Set(threadIds.filter((id) => marked.has(id)));
    return { count: ids.size, ids };
  } catch (err) {
    // The triage store is a nicety here: the summary goes out without the handled line.
    log.warn({ err }, "weekly summary: could not read which threads are handled; leaving that line out");
    return undefined;
  }
}

/** Draws one group's chart and uploads it in the summary's thread; undefined when it failed. */
async function postChart(
  deps: WeeklyRunDeps,
  log: Logger,
  report: WeeklyReport,
  groupId: string,
  threadTs: string,
): Promise<string | undefined> {
  const g = report.groups.find((x) => x.kind === "summary" && x.week.groupId === groupId);
  if (!g || g.kind !== "summary") return undefined;
  const input = sentimentChartInput(g.week, report.window);
  try {
    const png = await (deps.renderChart ?? renderSentimentChart)(input);
    const { fileId } = await send(deps, log, report.channelId, "chart", () =>
      deps.sender.upload({
        channel: report.channelId,
        filename: "weekly-sentiment.png",
        bytes: png,
        title: input.title,
        threadTs,
      }),
    );
    return fileId;
  } catch (err) {
    // Whatever went wrong (Skia missing, files:write not granted, Slack down), the summary stands.
    log.warn({ groupId, err }, "weekly chart left out: it could not be drawn or uploaded");
    return undefined;
  }
}

/**
 * One Slack write in the channel's turn (the per-channel throttle shared with digests), waiting
 * out 429s a few times. A channel Slack refuses for good ends the job and tells operators.
 */
async function send<T>(
  deps: WeeklyRunDeps,
  log: Logger,
  channel: string,
  what: "summary" | "chart",
  call: () => Promise<T>,
): Promise<T> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => sleepFor(ms).then(() => undefined));
  return sendInTurn({
    channel,
    throttle: deps.throttle,
    now,
    wait: (untilMs) => sleep(untilMs - now()),
    maxRateLimitWaits: MAX_RATE_LIMIT_WAITS,
    logger: log,
    call,
    onPermanent: (refusal) =>
      refusedBySlack(deps, {
        channel,
        refusal,
        what: what === "summary" ? "weekly summary" : "weekly chart",
      }),
  });
}
