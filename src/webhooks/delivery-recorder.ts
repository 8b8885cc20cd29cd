import type { RedisClient as Redis } from "../store/redis.js";
import type { DeliveryJob } from "../jobs/queues.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { StateKeys } from "../store/keys.js";
import { luaScript } from "../store/lua-script.js";
import { withTimeout } from "../store/redis.js";
import type { ClassifiedDelivery } from "./classify-delivery.js";

export type RecordOutcome = "queued" | "duplicate" | "dead_letter";

const DEDUPE_TTL_SECONDS = 7 * 86_400;
/** Deliveries recorded together at most: one batch is one Lua call. */
const MAX_BATCH = 100;

// Records a batch of deliveries in one call: a de-duplication marker each, the last-delivery
// time and count of each one's type, for thread deliveries the last time per community, and
// each valid delivery's job at the tail of the intake list. Per delivery it answers 1 (first
// receipt: marker set), 2 (a spooled copy of the receipt that set the marker: its first
// attempt timed out after the script had run, so it goes again, counted once) or 0 (a repeat:
// nothing queued). KEYS: last-delivery hash, counts hash, per-community hash, intake list, then one
// dedupe key per delivery; ARGV: ttl, then (type, time, community or "", intake item or "",
// "1" from the spool or "") per delivery.
const RECORD_DELIVERIES = luaScript(`
local out = {}
for i = 5, #KEYS do
  local a = (i - 5) * 5 + 1
  local t, at, community, item, spooled = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
  local r = 0
  if redis.call('SET', KEYS[i], at, 'EX', ARGV[1], 'NX') then
    r = 1
  elseif spooled == '1' and redis.call('GET', KEYS[i]) == at then
    r = 2
  end
  -- A spooled copy of a receipt recorded already was counted then.
  if r ~= 2 then
    -- Newer wins (ISO times compare as text): a replayed spool must not turn the clock back.
    if (redis.call('HGET', KEYS[1], t) or '') < at then redis.call('HSET', KEYS[1], t, at) end
    redis.call('HINCRBY', KEYS[2], t, 1)
    if community ~= '' and (redis.call('HGET', KEYS[3], community) or '') < at then
      redis.call('HSET', KEYS[3], community, at)
    end
  end
  if r > 0 and item ~= '' then redis.call('RPUSH', KEYS[4], item) end
  out[#out + 1] = r
end
return out
`);

/**
 * Where a receiver's deliveries go: the intake list the pump moves into the deliveries queue
 * (one for the deployment), and the workspace they belong to in multi-workspace mode.
 */
export interface IntakeTarget {
  key: string;
  workspaceId?: string;
}

/** One intake list entry: a delivery's job, and its workspace in multi-workspace mode. */
export interface IntakeItem {
  job: DeliveryJob;
  workspaceId?: string;
}

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
 * their type, then the job at the tail of the intake list (valid; the intake pump moves it into
 * the deliveries queue) or the dead letter (anything else). Deliveries that arrive in the same
 * event-loop turn are recorded together, so a burst costs one Redis round trip instead of one
 * per delivery. `record` rejects when Redis does not answer within `timeoutMs`; the caller
 * then spools.
 */
export class DeliveryRecorder {
  private batch: Pending[] = [];
  private scheduled = false;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    private readonly intake: IntakeTarget,
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
   * set after all; when the marker holds its own receipt time it is queued again (BullMQ's job
   * id and the digest path's versioning absorb the repeat), so a Redis stall never loses a
   * delivery.
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
    let fresh: number[];
    try {
      // One round trip: the markers and the jobs go in one script; a repeat is not queued.
      fresh = (await RECORD_DELIVERIES.run(
        this.redis,
        items.length + 4,
        this.keys.lastDelivery,
        this.keys.deliveryCounts,
        this.keys.lastThreadDeliveryByCommunity,
        this.intake.key,
        ...items.map((p) => this.keys.dedupe(p.c.deliveryId)),
        DEDUPE_TTL_SECONDS,
        ...items.flatMap((p) => [
          typeOf(p.c),
          p.at,
          threadCommunity(p.c),
          this.intakeItem(p),
          p.fromSpool ? "1" : "",
        ]),
      )) as number[];
    } catch (err) {
      // Not recorded (the caller spools the batch). A script that failed part way (out of
      // memory) keeps what it wrote: the spooled copies then find their own markers and go again.
      for (const p of items) p.reject(err);
      return;
    }
    await Promise.all(
      items.map(async (p, i) => {
        // A spooled copy of the receipt that set the marker (answer 2) goes again: its job or its
        // dead letter may not have been kept (the first attempt timed out, or failed after the
        // script; dropping the marker then is best-effort). Kept twice is the rarer, lesser harm.
        const outcome: RecordOutcome =
          fresh[i] === 1 || fresh[i] === 2 ? (p.c.kind === "valid" ? "queued" : "dead_letter") : "duplicate";
        if (outcome === "dead_letter") {
          try {
            await this.keepDeadLetter(p);
          } catch (err) {
            // Not kept: drop its marker, so the spooled copy is not taken for a repeat. Redis
            // is failing already; a marker left behind expires with DEDUPE_TTL_SECONDS.
            await this.redis.del(this.keys.dedupe(p.c.deliveryId)).catch(() => undefined);
            p.reject(err);
            return;
          }
        }
        this.metrics?.deliveries.inc({ type: metricType(p.c), outcome });
        p.resolve(outcome);
      }),
    );
  }

  /**
   * The intake entry of a valid delivery ("" for anything else). `deduplicated`: the script
   * checked the 7-day marker, so the job's first step need not ask Redis (`repeatCheck`).
   */
  private intakeItem(p: Pending): string {
    if (p.c.kind !== "valid") return "";
    const job: DeliveryJob = {
      deliveryId: p.c.deliveryId,
      receivedAt: p.at,
      event: p.c.event,
      deduplicated: true,
    };
    const item: IntakeItem = {
      job,
      ...(this.intake.workspaceId ? { workspaceId: this.intake.workspaceId } : {}),
    };
    return JSON.stringify(item);
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
 * Whether a delivery job is a repeat of one received earlier (within the 7-day window). Jobs
 * queued before the intake list (without `deduplicated`) were enqueued without waiting for
 * the marker, so their first step asks. The marker holds the first receipt's time; a spooled
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
