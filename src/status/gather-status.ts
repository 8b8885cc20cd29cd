import { everyQueue } from "../jobs/every-queue.js";
import { isInsightError, type InsightErrorCode } from "../insight/errors.js";
import { WEBHOOK_TYPES } from "../insight/schemas.js";
import type { AppServices } from "../runtime.js";
import { withTimeout } from "../store/redis.js";
import type { Subscription } from "../store/subscriptions.js";
import { Spool } from "../webhooks/spool.js";
import { communitiesLookSilent, SILENCE_THRESHOLD_MS, type CommunitySilenceVerdict } from "./silence.js";

export interface DeliveryLine {
  /** A webhook type, or "invalid" for deliveries that did not validate. */
  type: string;
  lastAt: string | undefined;
  count: number;
}

export interface QueueDepth {
  name: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  /** Workers connected to the queue, in any process; undefined when Redis will not list clients. */
  workers: number | undefined;
}

export interface ApiProbe {
  /** The service answered at all (any HTTP status). */
  reachable: boolean;
  /** false: 401; true: it answered 2xx or 403; undefined: could not tell. */
  keyValid: boolean | undefined;
  /** The failure's code when the probe failed. */
  error: InsightErrorCode | undefined;
  ms: number;
  communities: number | undefined;
}

/** Everything `/insight status` and the Home tab show, gathered in one pass. */
export interface StatusReport {
  at: string;
  redis: { ok: boolean; error: string | undefined };
  /** Undefined when Redis could not be read. */
  deliveries: DeliveryLine[] | undefined;
  silence: CommunitySilenceVerdict | undefined;
  silenceThresholdMs: number;
  queues: QueueDepth[] | undefined;
  deadLetters: { total: number; kept: number; byReason: Record<string, number> } | undefined;
  /** Deliveries waiting on local disk for Redis (every process sharing SPOOL_DIR). */
  spool: number | undefined;
  api: ApiProbe | undefined;
  /** When the service last answered 401 to any call of this app. */
  lastUnauthorizedAt: string | undefined;
  subscriptions: { total: number; channels: number; paused: Subscription[] } | undefined;
  /** Open operational incidents (names), e.g. "insight-unauthorized". */
  openAlerts: string[] | undefined;
}

export interface GatherOptions {
  now?: Date;
  /** Skip the live API call (the Home tab of a busy workspace may not want one each time). */
  probeApi?: boolean;
  probeTimeoutMs?: number;
  /** Redis reads give up after this long: status must answer while Redis is down. */
  redisTimeoutMs?: number;
}

const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
const DEFAULT_REDIS_TIMEOUT_MS = 2_000;

/** One GET of the community list, no retries: reachability and whether the key is accepted. */
export async function probeApi(
  services: AppServices,
  timeoutMs = DEFAULT_PROBE_TIMEOUT_MS,
): Promise<ApiProbe> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const list = await services.insight.client.listCommunities({
      maxAttempts: 1,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await services.ops.insightAuthorized().catch(() => undefined);
    return { reachable: true, keyValid: true, error: undefined, ms: ms(), communities: list.length };
  } catch (err) {
    if (!isInsightError(err)) {
      // Our own time-out fired (the signal): the client throws the abort reason, not an InsightError.
      return { reachable: false, keyValid: undefined, error: "timeout", ms: ms(), communities: undefined };
    }
    await services.reportInsightError(err).catch(() => undefined);
    const answered = ["unauthorized", "forbidden", "not_found", "rate_limited", "bad_request"].includes(
      err.code,
    );
    const keyValid = err.code === "unauthorized" ? false : err.code === "forbidden" ? true : undefined;
    return { reachable: answered, keyValid, error: err.code, ms: ms(), communities: undefined };
  }
}

/**
 * Reads delivery health, queues, dead letters, the spool, subscriptions and (optionally) the
 * API in parallel. Each part fails on its own: with Redis down, the report says so and still
 * shows the spool and the API.
 */
export async function gatherStatus(services: AppServices, o: GatherOptions = {}): Promise<StatusReport> {
  const now = o.now ?? new Date();
  const redisMs = o.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  let redisError: string | undefined;
  const read = async <T>(what: string, p: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await withTimeout(p(), redisMs, "Redis");
    } catch (err) {
      redisError ??= err instanceof Error ? err.message : String(err);
      services.logger.warn({ part: what, err: redisError }, "status: could not read");
      return undefined;
    }
  };
  const queues = everyQueue(services);

  const [last, lastByCommunity, counts, dead, subs, alerts, apiHealth, depths, api] = await Promise.all([
    read("last deliveries", () => services.health.lastDeliveries()),
    read("last thread deliveries", () => services.health.lastThreadDeliveries()),
    read("delivery counts", () => services.health.deliveryCounts()),
    read("dead letters", () => services.health.deadLetterCounts()),
    read("subscriptions", () => services.subscriptions.all()),
    read("alerts", () => services.ops.open()),
    read("api health", () => services.redis.hgetall(services.keys.apiHealth)),
    read("queues", () =>
      Promise.all(
        queues.map(async (q): Promise<QueueDepth> => {
          const [c, workers] = await Promise.all([
            q.getJobCounts("waiting", "active", "delayed", "failed"),
            // Rule 8: a queue nobody consumes is the failure a reconnect can leave behind.
            q.getWorkersCount().catch(() => undefined),
          ]);
          return {
            workers,
            name: q.name,
            waiting: c.waiting ?? 0,
            active: c.active ?? 0,
            delayed: c.delayed ?? 0,
            failed: c.failed ?? 0,
          };
        }),
      ),
    ),
    o.probeApi === false ? Promise.resolve(undefined) : probeApi(services, o.probeTimeoutMs),
  ]);

  let deliveries: DeliveryLine[] | undefined;
  if (last && counts) {
    const types = [...new Set<string>([...WEBHOOK_TYPES, ...Object.keys(last), ...Object.keys(counts)])];
    deliveries = types.map((type) => ({ type, lastAt: last[type], count: counts[type] ?? 0 }));
  }
  const silence =
    last && lastByCommunity && subs
      ? communitiesLookSilent({
          lastThreadDeliveryAt: last["chatthread-crud"],
          lastByCommunity,
          subscriptions: subs.filter((s) => !s.paused),
          now,
        })
      : undefined;

  let spool: number | undefined;
  try {
    spool = await new Spool(services.config.spoolDir, services.logger).sizeOnDisk();
  } catch {
    spool = undefined;
  }

  return {
    at: now.toISOString(),
    redis: { ok: redisError === undefined, error: redisError },
    deliveries,
    silence,
    silenceThresholdMs: SILENCE_THRESHOLD_MS,
    queues: depths,
    deadLetters: dead,
    spool,
    api,
    lastUnauthorizedAt: apiHealth?.lastUnauthorizedAt,
    subscriptions: subs
      ? {
          total: subs.length,
          channels: new Set(subs.map((s) => s.channelId)).size,
          paused: subs.filter((s) => s.paused),
        }
      : undefined,
    openAlerts: alerts ? Object.keys(alerts).sort() : undefined,
  };
}
