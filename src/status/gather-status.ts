import type { Queue } from "bullmq";
import type { OverdueQueue } from "../domain/overdue.js";
import type { InsightClient } from "../insight/client.js";
import { isInsightError } from "../insight/errors.js";
import { WEBHOOK_TYPES } from "../insight/schemas.js";
import type { Logger } from "../log.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import type { ReportInsightError } from "../ops/report-insight-error.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import { withTimeout } from "../store/redis.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import { communitiesLookSilent, SILENCE_THRESHOLD_MS } from "./silence.js";
import type { ApiProbe, QueueDepth, StatusReport, DeliveryLine } from "./status-report.js";

export type { ApiProbe, DeliveryLine, QueueDepth, StatusReport } from "./status-report.js";

/** What a status report reads. */
export interface StatusDeps {
  health: Pick<
    DeliveryHealthStore,
    "lastDeliveries" | "lastThreadDeliveries" | "deliveryCounts" | "deadLetterCounts"
  >;
  subscriptions: Pick<SubscriptionStore, "all">;
  ops: Pick<OpsNotifier, "open" | "insightAuthorized" | "lastUnauthorizedAt">;
  /** Every queue of the app (status reads them all, whichever features this process runs). */
  queues: () => readonly Pick<Queue, "name" | "getJobCounts" | "getWorkersCount">[];
  insight: Pick<InsightClient, "listCommunities">;
  /** False in a workspace whose admins have not connected its Insight service yet: nothing to probe. */
  insightConnected?: () => boolean;
  /**
   * Jobs overdue in the deployment's queues (jobs/overdue-jobs.ts); absent in a workspace's
   * status, which shows that workspace's own jobs only.
   */
  overdue?: () => Promise<readonly OverdueQueue[] | undefined>;
  /** Deliveries waiting in the spool on disk (every process sharing SPOOL_DIR). */
  spoolSize: () => Promise<number>;
  reportInsightError: ReportInsightError;
  logger: Logger;
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
  deps: Pick<StatusDeps, "insight" | "ops" | "reportInsightError">,
  timeoutMs = DEFAULT_PROBE_TIMEOUT_MS,
): Promise<ApiProbe> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const list = await deps.insight.listCommunities({
      maxAttempts: 1,
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Closing the 401 incident is best effort: the probe's answer stands either way.
    await deps.ops.insightAuthorized({ force: true }).catch(() => undefined);
    return { reachable: true, keyValid: true, error: undefined, ms: ms(), communities: list.length };
  } catch (err) {
    if (!isInsightError(err)) {
      // Our own time-out fired (the signal): the client throws the abort reason, not an InsightError.
      return { reachable: false, keyValid: undefined, error: "timeout", ms: ms(), communities: undefined };
    }
    await deps.reportInsightError(err);
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
export async function gatherStatus(deps: StatusDeps, o: GatherOptions = {}): Promise<StatusReport> {
  const now = o.now ?? new Date();
  const redisMs = o.redisTimeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  let redisError: string | undefined;
  const read = async <T>(what: string, p: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await withTimeout(p(), redisMs, "Redis");
    } catch (err) {
      redisError ??= err instanceof Error ? err.message : String(err);
      deps.logger.warn({ part: what, err }, "status: could not read");
      return undefined;
    }
  };
  const queues = deps.queues();
  const notConnected = deps.insightConnected?.() === false;

  const { overdue: lookOverdue } = deps;
  const [last, lastByCommunity, counts, dead, subs, alerts, lastUnauthorizedAt, depths, api, overdue] =
    await Promise.all([
      read("last deliveries", () => deps.health.lastDeliveries()),
      read("last thread deliveries", () => deps.health.lastThreadDeliveries()),
      read("delivery counts", () => deps.health.deliveryCounts()),
      read("dead letters", () => deps.health.deadLetterCounts()),
      read("subscriptions", () => deps.subscriptions.all()),
      read("alerts", () => deps.ops.open()),
      read("api health", () => deps.ops.lastUnauthorizedAt()),
      read("queues", () =>
        Promise.all(
          queues.map(async (q): Promise<QueueDepth> => {
            const [c, workers] = await Promise.all([
              q.getJobCounts("waiting", "prioritized", "active", "delayed", "failed"),
              // Rule 8: a queue nobody consumes is the failure a reconnect can leave behind.
              q.getWorkersCount().catch(() => undefined),
            ]);
            return {
              workers,
              name: q.name,
              // Jobs with a priority (fair turns across workspaces) wait too.
              waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
              active: c.active ?? 0,
              delayed: c.delayed ?? 0,
              failed: c.failed ?? 0,
            };
          }),
        ),
      ),
      o.probeApi === false || notConnected ? Promise.resolve(undefined) : probeApi(deps, o.probeTimeoutMs),
      lookOverdue ? read("overdue jobs", lookOverdue) : Promise.resolve(undefined),
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
    spool = await deps.spoolSize();
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
    ...(overdue ? { overdue } : {}),
    deadLetters: dead,
    spool,
    api,
    ...(notConnected ? { insightNotConnected: true } : {}),
    lastUnauthorizedAt,
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
