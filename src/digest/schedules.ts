import type { JobsOptions } from "bullmq";
import type { JobSchedulers } from "../jobs/job-schedulers.js";
import type { RedisClient as Redis } from "../store/redis.js";
import { digestCron } from "../domain/digest-batch.js";
import { DIGEST_PERIODS, deliveryOf, type DigestEvery, type Subscription } from "../domain/subscription.js";
import { jobId, type DigestJob } from "../jobs/job-types.js";
import type { StateKeys } from "../store/keys.js";

export const DIGEST_JOB_NAME = "digest-period";
const SCHEDULER_PREFIX = "digest";

/** One BullMQ job scheduler per (channel, period), under a stable id. */
export const digestSchedulerId = (channelId: string, every: DigestEvery) =>
  jobId(SCHEDULER_PREFIX, channelId, every);

function parseSchedulerId(id: string): { channelId: string; every: DigestEvery } | undefined {
  const parts = id.split("|");
  if (parts.length !== 3 || parts[0] !== SCHEDULER_PREFIX) return undefined;
  const every = DIGEST_PERIODS.find((p) => p === parts[2]);
  return every && parts[1] ? { channelId: parts[1], every } : undefined;
}

export interface DigestSchedulesDeps {
  /** The digest queue (a getter: see `healingQueue`). */
  queue: () => JobSchedulers<DigestJob>;
  redis: Redis;
  keys: Pick<StateKeys, "digestScheduled">;
  /** The channel's zone: its weekly schedule's, else DEFAULT_TIMEZONE. */
  timeZoneOf: (channelId: string) => Promise<string>;
  subscriptions: { all(): Promise<Subscription[]> };
  jobOptions?: JobsOptions;
}

/** The (channel, period) pairs the digest-mode subscriptions ask for. */
export function wantedSchedules(subs: readonly Subscription[]): { channelId: string; every: DigestEvery }[] {
  const seen = new Map<string, { channelId: string; every: DigestEvery }>();
  for (const s of subs) {
    const d = deliveryOf(s);
    if (d.mode !== "digest" || s.paused) continue;
    seen.set(`${s.channelId}|${d.every}`, { channelId: s.channelId, every: d.every });
  }
  return [...seen.values()];
}

/**
 * The period job schedulers of digest mode. They live in BullMQ (Redis), so they survive
 * restarts and fire once per tick whatever the number of processes. A scheduler is made when
 * the first thread of a period is pending (`ensure`, cheap thanks to a marker hash), checked
 * at each scheduler-role start (`reassert`), and a period job whose channel no longer asks
 * for it removes its own scheduler.
 */
export class DigestSchedules {
  constructor(private readonly deps: DigestSchedulesDeps) {}

  /** Makes sure (channel, every) has its job scheduler in the channel's current zone. */
  async ensure(channelId: string, every: DigestEvery, timeZone?: string): Promise<void> {
    const key = this.deps.keys.digestScheduled(channelId);
    const known = await this.deps.redis.hget(key, every);
    if (known !== null && (timeZone === undefined || known === timeZone)) return;
    const tz = timeZone ?? (await this.deps.timeZoneOf(channelId));
    if (known === tz) return;
    await this.#upsert(channelId, every, tz);
    await this.deps.redis.hset(key, every, tz);
  }

  async remove(channelId: string, every: DigestEvery): Promise<void> {
    await this.deps.queue().removeJobScheduler(digestSchedulerId(channelId, every));
    await this.deps.redis.hdel(this.deps.keys.digestScheduled(channelId), every);
  }

  /** Removes the channel's schedulers of every period not in `keep` (a no-op for those it has not). */
  async prune(channelId: string, keep: readonly DigestEvery[]): Promise<void> {
    for (const every of DIGEST_PERIODS) if (!keep.includes(every)) await this.remove(channelId, every);
  }

  /**
   * Makes BullMQ's digest schedulers match the subscriptions: missing ones, or ones in another
   * zone than the channel's, are upserted; ones no subscription asks for are removed.
   */
  async reassert(): Promise<{ restored: string[]; removed: string[] }> {
    const wanted = wantedSchedules(await this.deps.subscriptions.all());
    const ids = new Set(wanted.map((w) => digestSchedulerId(w.channelId, w.every)));
    const restored: string[] = [];
    for (const w of wanted) {
      const id = digestSchedulerId(w.channelId, w.every);
      const tz = await this.deps.timeZoneOf(w.channelId);
      const current = await this.deps.queue().getJobScheduler(id);
      if (current?.pattern === digestCron(w.every) && (current.tz ?? "UTC") === tz && current.next) {
        await this.deps.redis.hset(this.deps.keys.digestScheduled(w.channelId), w.every, tz);
        continue;
      }
      await this.#upsert(w.channelId, w.every, tz);
      await this.deps.redis.hset(this.deps.keys.digestScheduled(w.channelId), w.every, tz);
      restored.push(id);
    }
    const removed: string[] = [];
    for (const j of await this.deps.queue().getJobSchedulers(0, -1)) {
      const parsed = parseSchedulerId(j.key);
      if (parsed && !ids.has(j.key)) {
        await this.remove(parsed.channelId, parsed.every);
        removed.push(j.key);
      }
    }
    return { restored, removed };
  }

  async #upsert(channelId: string, every: DigestEvery, timeZone: string): Promise<void> {
    await this.deps.queue().upsertJobScheduler(
      digestSchedulerId(channelId, every),
      { pattern: digestCron(every), tz: timeZone },
      {
        name: DIGEST_JOB_NAME,
        data: { channelId, trigger: "schedule", every, timeZone },
        opts: this.deps.jobOptions ?? {},
      },
    );
  }
}
