import type { RedisClient as Redis } from "../store/redis.js";
import type { Queues } from "../jobs/queues.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { StateKeys } from "../store/keys.js";
import { luaScript } from "../store/lua-script.js";
import { withTimeout } from "../store/redis.js";
import type { ClassifiedDelivery } from "./classify-delivery.js";

export type RecordOutcome = "queued" | "duplicate" | "dead_letter";

const DEDUPE_TTL_SECONDS = 7 * 86_400;
/** Deliveries recorded together at most; one batch is one Lua call plus one `addBulk`. */
const MAX_BATCH = 100;

// Marks a batch of deliveries in one call: a de-duplication marker each (fresh = 1), the
// last-delivery time and count of each one's type, and for thread deliveries the last time
// per community. KEYS: last-delivery hash, counts hash, per-community hash, then one dedupe
// key per delivery; ARGV: ttl, then (type, time, community or "") per delivery.
const MARK_DELIVERIES = luaScript(`
local out = {}
for i = 4, #KEYS do
  local t = ARGV[(i - 4) * 3 + 2]
  local at = ARGV[(i - 4) * 3 + 3]
  local community = ARGV[(i - 4) * 3 + 4]
  local fresh = redis.call('SET', KEYS[i], at, 'EX', ARGV[1], 'NX')
  -- Newer wins (ISO times compare as text): a replayed spool must not turn the clock back.
  if (redis.call('HGET', KEYS[1], t) or '') < at then redis.call('HSET', KEYS[1], t, at) end
  redis.call('HINCRBY', KEYS[2], t, 1)
  if community ~= '' and (redis.call('HGET', KEYS[3], community) or '') < at then
    redis.call('HSET', KEYS[3], community, at)
  end
  out[#out + 1] = fresh and 1 or 0
end
return out
`);

interface Pending {
  c: ClassifiedDelivery;
  rawBody: string;
  at: string;
  fromSpool: boolean;
  resolve: (o: RecordOutcome) => void;
  reject: (err: unknown) => void;
}

/**
 * Records classified deliveries in Redis: a de-duplication marker, the last-delivery time of
 * their type, then the job (valid) or the dead letter (anything else). Deliveries that arrive
 * in the same event-loop turn are recorded together, so a burst costs two Redis round trips
 * instead of two per delivery; a lone delivery is recorded at once. `record` rejects when
 * Redis does not answer within `timeoutMs`; the caller then spools.
 */
export class DeliveryRecorder {
  private batch: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    private readonly queues: Pick<Queues, "deliveries">,
    private readonly health: DeliveryHealthStore,
    private readonly metrics: Metrics | undefined,
    private readonly logger: Logger,
    private readonly timeoutMs = 1_000,
  ) {
    // A script (by SHA), not MULTI: a pipeline on a connection that BullMQ loaded its scripts
    // on costs more CPU than the commands themselves (ioredis copies every script per pipeline).
  }

  /** Whether Redis is connected; when it is not, the receiver spools without trying. */
  get available(): boolean {
    return this.redis.status === "ready";
  }

  /**
   * `fromSpool`: a spooled copy may find the de-duplication marker that a timed-out attempt
   * set after all; it is queued anyway (BullMQ's job id and the digest path's versioning
   * absorb a real repeat), so a Redis stall can never lose a delivery.
   */
  record(
    c: ClassifiedDelivery,
    rawBody: string,
    receivedAt: Date,
    opts: { fromSpool?: boolean } = {},
  ): Promise<RecordOutcome> {
    const done = new Promise<RecordOutcome>((resolve, reject) => {
      this.batch.push({
        c,
        rawBody,
        at: receivedAt.toISOString(),
        fromSpool: opts.fromSpool === true,
        resolve,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
    return withTimeout(done, this.timeoutMs, "Redis");
  }

  private flush(): void {
    while (this.batch.length > 0) void this.recordBatch(this.batch.splice(0, MAX_BATCH));
    this.scheduled = false;
  }

  private async recordBatch(items: Pending[]): Promise<void> {
    const typeOf = (c: ClassifiedDelivery) => (c.kind === "valid" ? c.event.webhookType : "invalid");
    let fresh: number[] = [];
    try {
      // One round trip: the markers and the jobs are sent together, without waiting for the
      // markers' answer. A valid repeat is enqueued too: while its first job is kept, the job
      // id (= delivery id) makes the add a no-op; after that, the job's first step sees the
      // marker of an earlier receipt and drops it (`isRepeat`).
      const marking = MARK_DELIVERIES.run(
        this.redis,
        items.length + 3,
        this.keys.lastDelivery,
        this.keys.deliveryCounts,
        this.keys.lastThreadDeliveryByCommunity,
        ...items.map((p) => this.keys.dedupe(p.c.deliveryId)),
        DEDUPE_TTL_SECONDS,
        ...items.flatMap((p) => [typeOf(p.c), p.at, threadCommunity(p.c)]),
      );
      const enqueuing = this.enqueue(items);
      const [marked, enqueued] = await Promise.allSettled([marking, enqueuing]);
      if (marked.status === "fulfilled") fresh = marked.value as number[];
      if (marked.status === "rejected") throw marked.reason;
      if (enqueued.status === "rejected") throw enqueued.reason;
      const outcomes: RecordOutcome[] = items.map((p, i) =>
        fresh[i] === 1 || (p.fromSpool && p.c.kind === "valid")
          ? p.c.kind === "valid"
            ? "queued"
            : "dead_letter"
          : "duplicate",
      );
      await Promise.all(
        items.map((p, i) => (outcomes[i] === "dead_letter" ? this.keepDeadLetter(p) : undefined)),
      );
      items.forEach((p, i) => {
        const outcome = outcomes[i] ?? "duplicate";
        this.metrics?.deliveries.inc({ type: metricType(p.c), outcome });
        p.resolve(outcome);
      });
    } catch (err) {
      // Not recorded after all: drop the markers set above, so spooled copies are not taken
      // for repeats.
      const marked = items.filter((_, i) => fresh[i] === 1).map((p) => this.keys.dedupe(p.c.deliveryId));
      // Redis is failing already; a marker left behind expires with DEDUPE_TTL_SECONDS.
      if (marked.length > 0) await this.redis.del(...marked).catch(() => undefined);
      for (const p of items) p.reject(err);
    }
  }

  /** The one place deliveries are enqueued: a job per valid delivery, its id the delivery id. */
  private async enqueue(items: Pending[]): Promise<void> {
    const jobs = items.flatMap((p) =>
      p.c.kind === "valid"
        ? [
            {
              name: p.c.event.webhookType,
              data: { deliveryId: p.c.deliveryId, receivedAt: p.at, event: p.c.event },
              opts: { jobId: p.c.deliveryId },
            },
          ]
        : [],
    );
    // One job alone goes by `add`: `addBulk` builds an ioredis pipeline, which copies every
    // script BullMQ defined on the connection (about 60 µs of a lone delivery's ack).
    const [only] = jobs;
    if (jobs.length === 1 && only) await this.queues.deliveries.add(only.name, only.data, only.opts);
    else if (jobs.length > 1) await this.queues.deliveries.addBulk(jobs);
  }

  private async keepDeadLetter(p: Pending): Promise<void> {
    if (p.c.kind !== "dead") return;
    const c = p.c;
    await this.health.addDeadLetter({
      at: p.at,
      reason: c.reason,
      webhookType: c.webhookType,
      error: c.error,
      body: p.rawBody,
      deliveryId: c.deliveryId,
    });
    this.metrics?.deadLetters.inc({ reason: c.reason });
    this.logger.warn(
      { deliveryId: c.deliveryId, reason: c.reason, webhookType: c.webhookType, error: c.error },
      "webhook delivery kept as a dead letter",
    );
  }
}

/**
 * Whether a delivery job is a repeat of one received earlier (within the 7-day window) whose
 * own job is gone: the receiver enqueues repeats without waiting for the marker (one round
 * trip), so the job's first step asks. The marker holds the first receipt's time; a spooled
 * copy of that same receipt carries the same time and goes ahead.
 */
export function repeatCheck(
  redis: Pick<Redis, "get">,
  keys: Pick<StateKeys, "dedupe">,
): (deliveryId: string, receivedAt: string) => Promise<boolean> {
  return async (deliveryId, receivedAt) => {
    const first = await redis.get(keys.dedupe(deliveryId));
    return first !== null && first !== receivedAt;
  };
}

/** Bounded label values: an attacker-chosen webhookType must not mint new metric series. */
function metricType(c: ClassifiedDelivery): string {
  const type = c.kind === "valid" ? c.event.webhookType : c.webhookType;
  return type === "chatthread-crud" || type === "chatmessage-crud" ? type : "other";
}

/** The community of a thread delivery, whose webhook it proves alive; "" for anything else. */
function threadCommunity(c: ClassifiedDelivery): string {
  return c.kind === "valid" && c.event.webhookType === "chatthread-crud" ? c.event.payload.communityId : "";
}
