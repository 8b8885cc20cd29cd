import { setTimeout as sleepFor } from "node:timers/promises";
import { UnrecoverableError, type Job } from "bullmq";
import type { RedisClient as Redis } from "../store/redis.js";
import { groupBatch, periodStartOf, type PendingEntry } from "../domain/digest-batch.js";
import { deliveryOf } from "../domain/subscription.js";
import type { DigestJob } from "../jobs/job-types.js";
import type { Logger } from "../log.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import type { SlackSender } from "../slack/outbound/slack-sender.js";
import { refusedBySlack } from "../jobs/refused-by-slack.js";
import type { ChannelThrottle } from "../slack/outbound/channel-throttle.js";
import { sendInTurn } from "../slack/outbound/send-in-turn.js";
import { renderBatchedDigest } from "../slack/render/batched-digest.js";
import type { StateKeys } from "../store/keys.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import { RunGuard } from "../weekly/run-guard.js";
import type { PendingDigestStore } from "./pending-store.js";
import type { DigestSchedules } from "./schedules.js";
import { luaScript } from "../store/lua-script.js";

/** Message metadata of a batched digest: a flush that died after posting finds its post again. */
export const BATCH_EVENT_TYPE = "insight_digest_batch";

export interface DigestFlushDeps {
  redis: Redis;
  keys: Pick<StateKeys, "digestRun" | "lock">;
  pending: Pick<PendingDigestStore, "list" | "removeShown">;
  subscriptions: Pick<SubscriptionStore, "forChannel" | "pauseChannel">;
  schedules: Pick<DigestSchedules, "remove" | "ensure">;
  timeZoneOf: (channelId: string) => Promise<string>;
  sender: Pick<SlackSender, "post" | "findPosted">;
  throttle: Pick<ChannelThrottle, "reserve" | "pushBack">;
  ops: Pick<OpsNotifier, "alert">;
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** How long one flush holds the channel; a killed worker's hold ends by itself. Default 2 min. */
  lockTtlMs?: number;
}

export type FlushOutcome =
  | { status: "posted"; threads: number; ts: string }
  | { status: "empty" }
  | { status: "duplicate"; claim: "busy" | "done" }
  | { status: "not_wanted" };

/** Slack 429s waited out inside one flush before the job retries later. */
const MAX_RATE_LIMIT_WAITS = 5;

/**
 * Which flush a job is: a scheduled one is named by its period and tick (two jobs for the
 * same tick are the same flush); a `digest now` is its own.
 */
export function flushPeriod(job: Pick<Job<DigestJob>, "id" | "data" | "opts" | "timestamp">): string {
  if (job.data.trigger !== "schedule") return `now-${job.id ?? "unknown"}`;
  return `${job.data.every ?? "24h"}-${job.opts.prevMillis ?? job.timestamp}`;
}

interface StoredBatch {
  entries: PendingEntry[];
  names: [string, string][];
}

/**
 * Posts one channel's pending digest, idempotently. The run is guarded per (channel, flush):
 * the batch taken is recorded before anything is posted, the post is marked before it is
 * made and its ts recorded after, and the pending set loses an entry only once the post is
 * recorded (and only while the entry is still in the state shown). So a retried, stalled or
 * duplicated job posts the same batch once, a killed worker loses nothing, and a thread
 * re-enriched meanwhile waits for the next period. One flush per channel at a time.
 */
export async function flushDigest(job: Job<DigestJob>, deps: DigestFlushDeps): Promise<FlushOutcome> {
  const now = deps.now ?? Date.now;
  const { channelId, trigger, every } = job.data;
  const log = deps.logger.child({ jobId: job.id, channel: channelId, trigger, every });

  const subs = (await deps.subscriptions.forChannel(channelId)).filter(
    (s) =>
      !s.paused && deliveryOf(s).mode === "digest" && (trigger === "now" || deliveryOf(s).every === every),
  );
  if (trigger === "schedule" && every && subs.length === 0) {
    // No subscription of this channel asks for this period any more: this scheduler goes.
    await deps.schedules.remove(channelId, every);
    log.info("digest period no longer wanted by the channel; its schedule was removed");
    return { status: "not_wanted" };
  }
  if (trigger === "schedule" && every) {
    // The channel's zone may have changed (`weekly on ... <zone>`): the next tick follows it.
    const tz = await deps.timeZoneOf(channelId);
    if (tz !== job.data.timeZone) await deps.schedules.ensure(channelId, every, tz);
  }

  const period = flushPeriod(job);
  const guard = new RunGuard(deps.redis, deps.keys.digestRun(channelId, period), job.id ?? period, {
    now,
    leaseMs: 10 * 60_000,
    keepMs: 3 * 86_400_000,
  });
  const claim = await guard.claim();
  if (claim !== "claimed") {
    log.info({ period, claim }, "digest flush already done or under way; skipping");
    return { status: "duplicate", claim };
  }

  const release = await holdChannel(
    deps.redis,
    deps.keys.lock(`digest-flush:${channelId}`),
    job.id ?? period,
    deps.lockTtlMs ?? 120_000,
  );
  // Another flush of this channel (a `digest now` and a period end) is posting: retry shortly,
  // so the two never show the same threads twice.
  if (!release) throw new Error("another digest flush of this channel is under way; retrying");
  try {
    const parts = await guard.parts();
    let batch = parseBatch(parts.get("batch"));
    if (!batch) {
      const groups = new Map(subs.map((s) => [s.groupId, s.groupName] as [string, string]));
      const entries = (await deps.pending.list(channelId)).filter((e) => groups.has(e.digest.groupId));
      batch = { entries, names: [...groups] };
      if (!(await guard.markPart("batch", JSON.stringify(batch)))) {
        throw new Error("digest flush taken over by another job");
      }
    }
    if (batch.entries.length === 0) {
      await guard.finish();
      log.debug({ period }, "digest flush: nothing pending, nothing posted");
      return { status: "empty" };
    }

    let ts = parts.get("post");
    if (!ts) {
      const since = parts.get("posting");
      if (since) ts = await findPosted(deps, channelId, period, Number(since) - 5_000, log);
      if (!ts) {
        await guard.markPart("posting", String(now()));
        ts = await post(deps, log, channelId, period, batch, periodStart(job));
      }
      await guard.markPart("post", ts);
    }
    const removed = await deps.pending.removeShown(channelId, batch.entries, now());
    await guard.finish();
    log.info({ period, threads: batch.entries.length, removed, ts }, "digest posted");
    return { status: "posted", threads: batch.entries.length, ts };
  } finally {
    await release();
  }
}

// The channel's flush lock, taken again by the job that holds it: a job picked up after its
// worker was killed must not wait for its own dead hold to expire.
const HOLD = luaScript(`
local cur = redis.call('GET', KEYS[1])
if cur and cur ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2]))
return 1
`);
const RELEASE = luaScript(
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`,
);

async function holdChannel(
  redis: Redis,
  key: string,
  owner: string,
  ttlMs: number,
): Promise<(() => Promise<void>) | undefined> {
  if (Number(await HOLD.run(redis, 1, key, owner, ttlMs)) !== 1) return undefined;
  return async () => {
    await RELEASE.run(redis, 1, key, owner);
  };
}

function parseBatch(raw: string | undefined): StoredBatch | undefined {
  if (!raw) return undefined;
  try {
    const b = JSON.parse(raw) as Partial<StoredBatch>;
    return Array.isArray(b.entries) && Array.isArray(b.names) ? (b as StoredBatch) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * When a scheduled flush's period began (its tick minus the period), so that a daily digest at
 * 09:00 says "since" yesterday 09:00; undefined for `digest now`.
 */
export function periodStart(job: Pick<Job<DigestJob>, "data" | "opts" | "timestamp">): number | undefined {
  const { trigger, every, timeZone } = job.data;
  if (trigger !== "schedule" || !every) return undefined;
  return periodStartOf(every, job.opts.prevMillis ?? job.timestamp, timeZone ?? "UTC");
}

async function post(
  deps: DigestFlushDeps,
  log: Logger,
  channelId: string,
  period: string,
  batch: StoredBatch,
  startMs: number | undefined,
): Promise<string> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => sleepFor(ms).then(() => undefined));
  // A thread held over from an earlier period (re-enriched while that digest was posted) is older.
  const sinceMs = Math.min(startMs ?? Infinity, ...batch.entries.map((e) => e.firstSeenMs));
  const { text, blocks } = renderBatchedDigest({
    batch: groupBatch(batch.entries),
    groupNames: new Map(batch.names),
    sinceMs,
  });
  const ts = await sendInTurn({
    channel: channelId,
    throttle: deps.throttle,
    now,
    wait: (untilMs) => sleep(untilMs - now()),
    maxRateLimitWaits: MAX_RATE_LIMIT_WAITS,
    logger: log,
    call: () =>
      deps.sender.post({
        channel: channelId,
        text,
        blocks,
        metadata: { event_type: BATCH_EVENT_TYPE, event_payload: { period } },
      }),
    // The pending threads stay: they go out with the next flush once the channel takes them.
    onPermanent: (refusal) => refusedBySlack(deps, { channel: channelId, refusal, what: "batched digest" }),
    onRequestError: async (c) => {
      throw new UnrecoverableError(`Slack refused the digest: ${c.code}`);
    },
  });
  return ts;
}

/** A post of this flush made before the worker died, found by its metadata. */
async function findPosted(
  deps: DigestFlushDeps,
  channelId: string,
  period: string,
  sinceMs: number,
  log: Logger,
): Promise<string | undefined> {
  try {
    return await deps.sender.findPosted(channelId, BATCH_EVENT_TYPE, sinceMs, (p) => p.period === period);
  } catch (err) {
    // History unreadable (scope missing, Slack down): post, as when nothing is found.
    log.debug({ err, channelId }, "could not look for an earlier post of this digest");
    return undefined;
  }
}
