import { Queue, Worker, type JobsOptions } from "bullmq";
import { QUEUE_NAMES } from "../jobs/queues.js";
import { healingQueue } from "../jobs/healing-queue.js";
import type { RelayModule } from "../modules.js";
import type { AppServices } from "../runtime.js";
import { createRedis } from "../store/redis.js";
import type { SentimentChartInput } from "./chart.js";
import { weeklyCommand } from "./command.js";
import { describeSchedule } from "./describe-schedule.js";
import { runWeeklySummary } from "./run-weekly.js";
import { WeeklySchedules, type WeeklyJob } from "./schedules.js";

export interface WeeklyModuleOptions {
  /** Thread pages in flight per group; default 4. */
  pageConcurrency?: number;
  /** Channels summarised at once by one worker process; default 2. */
  workerConcurrency?: number;
  /** Options of every weekly job (scheduled and `now`). */
  jobOptions?: JobsOptions;
  /** Time between two `weekly now` in one channel; default 10 minutes. */
  nowCooldownMs?: number;
  /** Replaces the chart renderer (tests make it fail). */
  renderChart?: (input: SentimentChartInput) => Promise<Buffer>;
}

/** Retries wait for the Insight Service to come back; nothing is posted before a run can finish. */
export const WEEKLY_JOB_DEFAULTS: JobsOptions = {
  attempts: 3,
  backoff: { type: "exponential", delay: 60_000, jitter: 0.3 },
  removeOnComplete: { age: 14 * 86_400, count: 1_000 },
  removeOnFail: { age: 30 * 86_400, count: 1_000 },
};

interface WeeklyParts {
  queue: () => Queue<WeeklyJob>;
  schedules: WeeklySchedules;
}

/**
 * Weekly summaries: the `weekly` subcommand (web), the `weekly` queue's worker (worker), and
 * at start of the scheduler role a check that BullMQ's job schedulers match the stored
 * schedules. The schedules themselves are BullMQ job schedulers, written by `weekly on`
 * directly: they live in Redis and fire whichever roles are up.
 */
export function createWeeklyModule(o: WeeklyModuleOptions = {}): RelayModule {
  const jobOptions = { ...WEEKLY_JOB_DEFAULTS, ...o.jobOptions };
  const built = new WeakMap<AppServices, WeeklyParts>();
  const parts = (services: AppServices): WeeklyParts => {
    let p = built.get(services);
    if (!p) {
      const queue = healingQueue(
        () =>
          new Queue<WeeklyJob>(QUEUE_NAMES.weekly, {
            connection: services.redis,
            prefix: services.config.redis.prefix,
            defaultJobOptions: jobOptions,
          }),
      );
      p = {
        queue,
        schedules: new WeeklySchedules(queue, services.redis, services.keys.schedules, jobOptions),
      };
      built.set(services, p);
    }
    return p;
  };

  return {
    name: "weekly",

    init(services) {
      services.describeSchedule = async (channelId) => {
        const s = await parts(services).schedules.get(channelId);
        return s ? describeSchedule(s) : undefined;
      };
    },

    commands(router, services) {
      const { queue, schedules } = parts(services);
      router.register(
        weeklyCommand({
          schedules,
          queue,
          redis: services.redis,
          cooldownKey: services.keys.weeklyNowCooldown,
          nowCooldownMs: o.nowCooldownMs ?? 10 * 60_000,
        }),
      );
    },

    async startWorkers(services) {
      const { config, logger, tuning } = services;
      const conn = createRedis(config.redis.url, "blocking", logger);
      const worker = new Worker<WeeklyJob>(
        QUEUE_NAMES.weekly,
        (job) =>
          runWeeklySummary(job, {
            client: services.insight.client,
            activity: (groupId, days) => services.health.activity(groupId, days),
            logger,
            redis: services.redis,
            runKey: services.keys.weeklyRun,
            subscriptions: services.subscriptions,
            slack: services.slack,
            throttle: services.throttle,
            ops: services.ops,
            reportInsightError: (err) => services.reportInsightError(err),
            ...(o.renderChart ? { renderChart: o.renderChart } : {}),
            ...(o.pageConcurrency ? { concurrency: o.pageConcurrency } : {}),
          }),
        {
          connection: conn,
          prefix: config.redis.prefix,
          concurrency: o.workerConcurrency ?? 2,
          ...(tuning.lockDurationMs ? { lockDuration: tuning.lockDurationMs } : {}),
          ...(tuning.stalledIntervalMs ? { stalledInterval: tuning.stalledIntervalMs } : {}),
        },
      );
      worker.on("failed", (job, err) => {
        services.metrics.jobs.inc({ queue: QUEUE_NAMES.weekly, outcome: "failed" });
        logger.warn(
          { queue: QUEUE_NAMES.weekly, jobId: job?.id, attempts: job?.attemptsMade, err: err.message },
          "weekly summary job failed",
        );
      });
      worker.on("completed", () =>
        services.metrics.jobs.inc({ queue: QUEUE_NAMES.weekly, outcome: "completed" }),
      );
      worker.on("error", (err) =>
        logger.warn({ queue: QUEUE_NAMES.weekly, err: err.message }, "worker error"),
      );
      worker.on("closed", () => conn.disconnect());
      return [worker];
    },

    async startScheduler(services) {
      try {
        const r = await parts(services).schedules.reassert();
        if (r.restored.length > 0 || r.removed.length > 0) {
          services.logger.info(r, "weekly schedules re-asserted");
        }
      } catch (err) {
        // Not fatal: the schedules already in BullMQ keep firing; the next start checks again.
        services.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          "could not check weekly schedules",
        );
      }
      return async () => undefined;
    },
  };
}

export const weeklyModule = createWeeklyModule();
