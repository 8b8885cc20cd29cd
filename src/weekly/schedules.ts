import type { JobsOptions } from "bullmq";
import type { JobSchedulers } from "../jobs/job-schedulers.js";
import type { RedisClient as Redis } from "../store/redis.js";
import { jobId, type WeeklyJob } from "../jobs/job-types.js";

export type { WeeklyJob };

/** A channel's schedule as the app keeps it (the source BullMQ's job scheduler is made from). */
export interface StoredSchedule {
  channelId: string;
  cron: string;
  timeZone: string;
  setBy: string;
  setAt: string;
}

export interface ScheduleInfo extends StoredSchedule {
  /** The next run according to BullMQ; undefined when its job scheduler is missing. */
  next: Date | undefined;
}

export const WEEKLY_JOB_NAME = "weekly-summary";
const SCHEDULER_PREFIX = "weekly";

/** One BullMQ job scheduler per channel, under a stable id. */
export const schedulerId = (channelId: string) => jobId(SCHEDULER_PREFIX, channelId);
const channelOfScheduler = (id: string) =>
  id.startsWith(`${SCHEDULER_PREFIX}|`) ? id.slice(SCHEDULER_PREFIX.length + 1) : undefined;

function parseStored(raw: string | null | undefined): StoredSchedule | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as Partial<StoredSchedule>;
    if (typeof v.channelId !== "string" || typeof v.cron !== "string" || typeof v.timeZone !== "string") {
      return undefined;
    }
    return { setBy: "", setAt: "", ...v } as StoredSchedule;
  } catch {
    return undefined;
  }
}

/**
 * The channels' weekly schedules. Each is a row in a Redis hash (what was asked for) and a
 * BullMQ job scheduler with the same cron and zone (what fires). BullMQ keeps its schedulers in
 * Redis, so schedules survive restarts by themselves and every process shares them; the hash
 * lets the scheduler role put back a job scheduler that went missing (a queue obliterated from
 * the dashboard) and remove ones nobody asked for.
 */
export class WeeklySchedules {
  constructor(
    /** The weekly queue (a getter: see `healingQueue`). */
    private readonly queue: () => JobSchedulers<WeeklyJob>,
    private readonly redis: Redis,
    private readonly hashKey: string,
    private readonly jobOptions: JobsOptions = {},
  ) {}

  /** Creates or changes a channel's schedule; one job scheduler per channel, whatever the history. */
  async set(s: StoredSchedule): Promise<ScheduleInfo> {
    const before = await this.redis.hget(this.hashKey, s.channelId);
    await this.redis.hset(this.hashKey, s.channelId, JSON.stringify(s));
    try {
      await this.#upsert(s);
    } catch (err) {
      // Keep the two in agreement: what the user was told failed did not happen.
      if (before) await this.redis.hset(this.hashKey, s.channelId, before).catch(() => undefined);
      else await this.redis.hdel(this.hashKey, s.channelId).catch(() => undefined);
      throw err;
    }
    return { ...s, next: await this.#next(s.channelId) };
  }

  /** True when there was a schedule to remove. */
  async remove(channelId: string): Promise<boolean> {
    const removedRow = (await this.redis.hdel(this.hashKey, channelId)) > 0;
    const removedScheduler = await this.queue().removeJobScheduler(schedulerId(channelId));
    return removedRow || removedScheduler;
  }

  async get(channelId: string): Promise<ScheduleInfo | undefined> {
    const s = parseStored(await this.redis.hget(this.hashKey, channelId));
    return s ? { ...s, next: await this.#next(channelId) } : undefined;
  }

  async all(): Promise<StoredSchedule[]> {
    const rows = await this.redis.hvals(this.hashKey);
    return rows.map(parseStored).filter((s): s is StoredSchedule => s !== undefined);
  }

  /**
   * Makes BullMQ's job schedulers match the stored schedules: missing or different ones are
   * upserted, unknown `weekly|…` ones removed. Idempotent, so any number of scheduler
   * processes may run it at start: upserting an unchanged scheduler is skipped, and BullMQ
   * keeps one next job per scheduler id.
   */
  async reassert(): Promise<{ restored: string[]; removed: string[] }> {
    const stored = await this.all();
    const wanted = new Set(stored.map((s) => s.channelId));
    const restored: string[] = [];
    for (const s of stored) {
      const current = await this.queue().getJobScheduler(schedulerId(s.channelId));
      if (current?.pattern === s.cron && (current.tz ?? "UTC") === s.timeZone && current.next) continue;
      await this.#upsert(s);
      restored.push(s.channelId);
    }
    const removed: string[] = [];
    for (const j of await this.queue().getJobSchedulers(0, -1)) {
      const channel = channelOfScheduler(j.key);
      if (channel !== undefined && !wanted.has(channel)) {
        await this.queue().removeJobScheduler(j.key);
        removed.push(channel);
      }
    }
    return { restored, removed };
  }

  async #upsert(s: StoredSchedule): Promise<void> {
    await this.queue().upsertJobScheduler(
      schedulerId(s.channelId),
      { pattern: s.cron, tz: s.timeZone },
      {
        name: WEEKLY_JOB_NAME,
        data: { channelId: s.channelId, trigger: "schedule", timeZone: s.timeZone },
        opts: this.jobOptions,
      },
    );
  }

  async #next(channelId: string): Promise<Date | undefined> {
    const j = await this.queue().getJobScheduler(schedulerId(channelId));
    return j?.next ? new Date(j.next) : undefined;
  }
}
