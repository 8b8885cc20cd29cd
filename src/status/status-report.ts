import { INTAKE_STALLED, SPOOL_GROWING, WORKERS_CANNOT_FETCH } from "../ops/incidents.js";
import type { OverdueQueue } from "../domain/overdue.js";
import type { InsightErrorCode } from "../insight/errors.js";
import type { Subscription } from "../domain/subscription.js";
import type { CommunitySilenceVerdict } from "./silence.js";

/*
 * What `/insight status` and the Home tab show, as plain data: gathered by gather-status.ts,
 * rendered by slack/render/status.ts and home.ts (which therefore import nothing with I/O).
 */

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
  /** Queues with jobs overdue (no worker moves them); undefined when not looked at or unreadable. */
  overdue?: readonly OverdueQueue[] | undefined;
  deadLetters: { total: number; kept: number; byReason: Record<string, number> } | undefined;
  /** Deliveries waiting on local disk for Redis (every process sharing SPOOL_DIR). */
  spool: number | undefined;
  api: ApiProbe | undefined;
  /** The workspace's Insight service is not connected yet (multi-workspace mode): `api` is not probed. */
  insightNotConnected?: boolean;
  /** When the service last answered 401 to any call of this app. */
  lastUnauthorizedAt: string | undefined;
  subscriptions: { total: number; channels: number; paused: Subscription[] } | undefined;
  /** Open operational incidents (names), e.g. "insight-unauthorized". */
  openAlerts: string[] | undefined;
}

/** The status lines of the health watch's open incidents, without their internal names. */
export function watchLines(openAlerts: readonly string[] | undefined): string[] {
  const open = new Set(openAlerts ?? []);
  const out: string[] = [];
  if (open.has(WORKERS_CANNOT_FETCH))
    out.push("*Workers cannot fetch jobs*: digests are not going out. /readyz and the ops channel say why.");
  if (open.has(SPOOL_GROWING))
    out.push(
      "*Updates from the Insight Service are piling up on disk* while Redis answers: they are not reaching the queues.",
    );
  if (open.has(INTAKE_STALLED))
    out.push(
      "*Digests are on hold*: new thread activity arrives but is not processed. Whoever runs Insight Relay should check that a worker process (ROLE=worker or all) is running.",
    );
  return out;
}
