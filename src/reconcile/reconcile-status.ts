import type { RedisClient as Redis } from "../store/redis.js";
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
  /** The webhook-silence incidents open now, one per community. */
  incidents: Array<IncidentRecord & { communityId: string | undefined }>;
}

/** What is kept of an open webhook-silence incident. */
export interface IncidentRecord {
  openedAt: string;
  /** The community's last `chatthread-crud` delivery before the silence; undefined: none ever. */
  lastDeliveryAt: string | undefined;
  /** Digests the reconciler sent for that community since the incident opened. */
  sent: number;
}

const INCIDENT_FIELD = "incident:";
/** The status hash field of a community's incident ("" : the community is not known). */
export const incidentField = (community: string) => `${INCIDENT_FIELD}${community}`;

function parseIncident(v: string | undefined): IncidentRecord | undefined {
  if (!v) return undefined;
  try {
    const r = JSON.parse(v) as Partial<IncidentRecord>;
    if (typeof r.openedAt !== "string") return undefined;
    return {
      openedAt: r.openedAt,
      lastDeliveryAt: typeof r.lastDeliveryAt === "string" ? r.lastDeliveryAt : undefined,
      sent: typeof r.sent === "number" ? r.sent : 0,
    };
  } catch {
    return undefined;
  }
}

export async function readIncident(
  redis: Redis,
  statusKey: string,
  field: string,
): Promise<IncidentRecord | undefined> {
  return parseIncident((await redis.hget(statusKey, field)) ?? undefined);
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
    incidents: Object.entries(h).flatMap(([field, v]) => {
      const r = field.startsWith(INCIDENT_FIELD) ? parseIncident(v) : undefined;
      return r ? [{ ...r, communityId: field.slice(INCIDENT_FIELD.length) || undefined }] : [];
    }),
  };
}
