import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { StateKeys } from "../store/keys.js";
import { luaScript } from "../store/lua-script.js";
import type { RedisClient } from "../store/redis.js";
import type { ClassifiedDelivery } from "./classify-delivery.js";

const DEDUPE_TTL_SECONDS = 7 * 86_400;

/** Where a workspace's receipts are recorded (one deployment: a single one). */
export interface ReceiptBook {
  keys: Pick<StateKeys, "dedupe" | "lastDelivery" | "deliveryCounts" | "lastThreadDeliveryByCommunity">;
  health: Pick<DeliveryHealthStore, "addDeadLetter">;
}

/** A delivery of the intake, classified, with its receipt time and id, and body (for a dead letter). */
export interface Receipt {
  c: ClassifiedDelivery;
  receivedAt: string;
  /** The receipt's id; absent for one spooled before receipts had ids (its time stands in). */
  receipt?: string | undefined;
  body: string;
}

// Records a batch's receipts in one call: a de-duplication marker each (holding the receipt:
// its time and id), the last-delivery time and count of each one's type, and for thread
// deliveries the last time per community. Per delivery it answers 1 (first receipt: marker set),
// 2 (the same receipt again: a batch taken again after its pump stopped, or a spooled copy of a
// receipt whose first attempt timed out after Redis had it; counted once), 3 (the same receipt
// again, its dead letter kept already: the marker says so) or 0 (a repeat). KEYS:
// last-delivery hash, counts hash, per-community hash, then one dedupe key per delivery; ARGV:
// ttl, then (type, time, community or "", marker) per delivery.
const RECORD_RECEIPTS = luaScript(`
local out = {}
for i = 4, #KEYS do
  local a = (i - 4) * 4 + 1
  local t, at, community, mark = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4]
  local r = 0
  if redis.call('SET', KEYS[i], mark, 'EX', ARGV[1], 'NX') then
    r = 1
  else
    local held = redis.call('GET', KEYS[i])
    if held == mark then r = 2 elseif held == mark .. ' kept' then r = 3 end
  end
  if r < 2 then
    -- Newer wins (ISO times compare as text): a replayed spool must not turn the clock back.
    if (redis.call('HGET', KEYS[1], t) or '') < at then redis.call('HSET', KEYS[1], t, at) end
    redis.call('HINCRBY', KEYS[2], t, 1)
    if community ~= '' and (redis.call('HGET', KEYS[3], community) or '') < at then
      redis.call('HSET', KEYS[3], community, at)
    end
  end
  out[#out + 1] = r
end
return out
`);

/**
 * Records the receipts of a batch of one workspace's deliveries (the first step of every
 * delivery, before it becomes a job): the 7-day de-duplication, the last-delivery times and
 * counts that `status` shows, and a dead letter for each first receipt that is not a valid
 * delivery. Answers, per receipt, whether it goes on: a valid first receipt, or the same
 * receipt again (its job ids make a second add a no-op).
 */
export async function recordReceipts(
  redis: RedisClient,
  book: ReceiptBook,
  receipts: Receipt[],
  o: { metrics?: Pick<Metrics, "deliveries" | "deadLetters">; logger: Logger },
): Promise<boolean[]> {
  if (receipts.length === 0) return [];
  const { keys } = book;
  const answers = (await RECORD_RECEIPTS.run(
    redis,
    receipts.length + 3,
    keys.lastDelivery,
    keys.deliveryCounts,
    keys.lastThreadDeliveryByCommunity,
    ...receipts.map((r) => keys.dedupe(r.c.deliveryId)),
    DEDUPE_TTL_SECONDS,
    ...receipts.flatMap((r) => [typeOf(r.c), r.receivedAt, threadCommunity(r.c), markerOf(r)]),
  )) as number[];
  const goes: boolean[] = [];
  const kept = new Set<string>();
  for (const [i, r] of receipts.entries()) {
    const answer = answers[i] ?? 0;
    if (answer === 0) {
      o.metrics?.deliveries.inc({ type: metricType(r.c), outcome: "duplicate" });
      goes.push(false);
      continue;
    }
    if (r.c.kind === "dead") {
      // A copy of the same receipt in this batch finds its marker before the first is kept.
      const mark = markerOf(r);
      if (answer !== 3 && !kept.has(mark)) await keepDeadLetter(redis, book, r, r.c, o);
      kept.add(mark);
      goes.push(false);
      continue;
    }
    if (answer === 1) o.metrics?.deliveries.inc({ type: metricType(r.c), outcome: "queued" });
    goes.push(true);
  }
  return goes;
}

/**
 * What a receipt's marker holds: its time and id (an older receiver's markers hold the time
 * alone). Once its dead letter is kept, " kept" follows.
 */
export const markerOf = (r: Pick<Receipt, "receivedAt" | "receipt">): string =>
  r.receipt ? `${r.receivedAt} ${r.receipt}` : r.receivedAt;

/** The receipt time a marker holds. */
const markerTime = (marker: string): string => marker.split(" ")[0] ?? "";

/**
 * Whether a delivery job is a repeat of one received earlier (within the 7-day window). Jobs
 * queued before the receipt was recorded by the receiver or the pump (without `deduplicated`)
 * were enqueued without waiting for the marker, so their first step asks. The marker holds the
 * first receipt's time; a spooled copy of that same receipt carries the same time and goes ahead.
 */
export function repeatCheck(
  redis: Pick<RedisClient, "get">,
  keys: Pick<StateKeys, "dedupe">,
): (deliveryId: string, receivedAt: string) => Promise<boolean> {
  return async (deliveryId, receivedAt) => {
    const first = await redis.get(keys.dedupe(deliveryId));
    return first !== null && markerTime(first) !== receivedAt;
  };
}

/**
 * Keeps an invalid delivery's dead letter, then says so in its marker, so that the same receipt
 * again (its batch taken again, its spooled copy) does not keep it twice. A process stopped
 * between the two leaves the marker unsaid: the store keeps the same dead letter once anyway.
 */
async function keepDeadLetter(
  redis: RedisClient,
  book: ReceiptBook,
  r: Receipt,
  c: Extract<ClassifiedDelivery, { kind: "dead" }>,
  o: { metrics?: Pick<Metrics, "deliveries" | "deadLetters">; logger: Logger },
): Promise<void> {
  const kept = await book.health.addDeadLetter({
    at: r.receivedAt,
    reason: c.reason,
    webhookType: c.webhookType,
    error: c.error,
    body: r.body,
    deliveryId: c.deliveryId,
  });
  await redis.set(book.keys.dedupe(c.deliveryId), `${markerOf(r)} kept`, "KEEPTTL");
  if (!kept) return; // kept by a process that stopped before marking it: counted and logged there
  o.metrics?.deadLetters.inc({ reason: c.reason });
  o.metrics?.deliveries.inc({ type: metricType(c), outcome: "dead_letter" });
  o.logger.warn(
    { deliveryId: c.deliveryId, reason: c.reason, webhookType: c.webhookType, error: c.error },
    "webhook delivery kept as a dead letter",
  );
}

const typeOf = (c: ClassifiedDelivery) => (c.kind === "valid" ? c.event.webhookType : "invalid");

/** Bounded label values: an attacker-chosen webhookType must not mint new metric series. */
function metricType(c: ClassifiedDelivery): string {
  const type = c.kind === "valid" ? c.event.webhookType : c.webhookType;
  return type === "chatthread-crud" || type === "chatmessage-crud" ? type : "other";
}

/** The community of a thread delivery, whose webhook it proves alive; "" for anything else. */
function threadCommunity(c: ClassifiedDelivery): string {
  return c.kind === "valid" && c.event.webhookType === "chatthread-crud" ? c.event.payload.communityId : "";
}
