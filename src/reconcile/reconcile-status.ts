import type { Redis } from "ioredis";
import type { StateKeys } from "../store/keys.js";

/** What the last reconcile run found, for `/insight status` and the admin page. */
export interface ReconcileStatus {
  lastRunAt: string | undefined;
  lastRunMs: number | undefined;
  groupsRead: number;
  groupsFailed: number;
  /** The error code of the last failed group read (never a message: it could carry a URL). */
  lastError: string | undefined;
  /** Digests posted or edited by the reconciler in the last run, and ever. */
  sentLastRun: number;
  sentTotal: number;
  /** Changes waiting one more reading for a delivery to explain them. */
  deferredLastRun: number;
  /** Set while the webhook-silence incident is open. */
  incident:
    | {
        openedAt: string;
        /** The last `chatthread-crud` delivery before the silence; undefined: none ever. */
        lastDeliveryAt: string | undefined;
        /** Digests the reconciler sent since the incident opened. */
        sent: number;
      }
    | undefined;
}

export const reconcileStatusKey = (keys: StateKeys) => keys.reconcileBaseline("~status");

const num = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number(v));

export async function readReconcileStatus(redis: Redis, keys: StateKeys): Promise<ReconcileStatus> {
  const h = await redis.hgetall(reconcileStatusKey(keys));
  return {
    lastRunAt: h.lastRunAt || undefined,
    lastRunMs: num(h.lastRunMs),
    groupsRead: num(h.groupsRead) ?? 0,
    groupsFailed: num(h.groupsFailed) ?? 0,
    lastError: h.lastError || undefined,
    sentLastRun: num(h.sentLastRun) ?? 0,
    sentTotal: num(h.sentTotal) ?? 0,
    deferredLastRun: num(h.deferredLastRun) ?? 0,
    incident: h.incidentOpenedAt
      ? {
          openedAt: h.incidentOpenedAt,
          lastDeliveryAt: h.incidentLastDeliveryAt || undefined,
          sent: num(h.incidentSent) ?? 0,
        }
      : undefined,
  };
}
