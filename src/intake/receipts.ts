import { createHash } from "node:crypto";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { StateKeys } from "../store/keys.js";
import { luaScript } from "../store/lua-script.js";
import type { RedisClient } from "../store/redis.js";
import type { ClassifiedDelivery } from "./classify-delivery.js";

const DAY_MS = 86_400_000;
const DEDUPE_SECONDS = 7 * 86_400;
/** Today's bucket and the 7 days before it: a marker recorded 7 days ago today may still be live. */
const BUCKETS = 8;
/** Added to a bucket's expiry: a Redis clock a little ahead of the app's never drops a live marker. */
const CLOCK_MARGIN_SECONDS = 3_600;

/** Where a workspace's receipts are recorded (one deployment: a single one). */
export interface ReceiptBook {
  keys: Pick<
    StateKeys,
    "dedupe" | "dedupeDay" | "lastDelivery" | "deliveryCounts" | "lastThreadDeliveryByCommunity"
  >;
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

/*
 * De-duplication markers (issue 38): one hash per day and shard (keys.ts `dedupeDay`), field =
 * the delivery id's 16 bytes, value = "<second of the day it was
 * recorded> <marker>", the marker compact (`compactMarker`) and "!" once its dead letter is
 * kept. A marker is live for 7 days from its recording, as the one-key markers before were (SET
 * EX): looked up in the same shard of today and the 7 days before, the oldest day counting only
 * markers recorded later in the day than now. A day's hash expires when its last marker does.
 * The one-key marker of the layout before (`dedupe`, same slot) is read after the buckets, until
 * the last of them has expired.
 *
 * FIND (a Lua snippet): the live marker of a delivery. Its KEYS start at `k + 1` (the 8 buckets,
 * today first, then the old key); it answers the bucket's index (1-8) and the value, 9 and the
 * old key's value, or nil.
 */
const FIND = `
local function find(k, field, nowOff)
  for j = 1, ${BUCKETS} do
    local v = redis.call('HGET', KEYS[k + j], field)
    if v then
      local sp = string.find(v, ' ', 1, true)
      if sp and (j < ${BUCKETS} or tonumber(string.sub(v, 1, sp - 1)) > nowOff) then return j, v, sp end
    end
  end
  local old = redis.call('GET', KEYS[k + ${BUCKETS + 1}])
  if old then return ${BUCKETS + 1}, old end
  return nil
end
`;

// Records a batch's receipts in one call: a de-duplication marker each (holding the receipt:
// its time and id), the last-delivery time and count of each one's type, and for thread
// deliveries the last time per community. Per delivery it answers 1 (first receipt: marker set),
// 2 (the same receipt again: a batch taken again after its pump stopped, or a spooled copy of a
// receipt whose first attempt timed out after Redis had it; counted once), 3 (the same receipt
// again, its dead letter kept already: the marker says so) or 0 (a repeat). KEYS:
// last-delivery hash, counts hash, per-community hash, then 9 marker keys per delivery (FIND);
// ARGV: the second of today, today's bucket's expiry (unix seconds), then (type, time,
// community or "", compact marker, marker, field) per delivery.
const RECORD_RECEIPTS = luaScript(`${FIND}
local nowOff = tonumber(ARGV[1])
local out = {}
for d = 1, (#ARGV - 2) / 6 do
  local a = 2 + (d - 1) * 6
  local t, at, community, cmark, mark, field = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6]
  local k = 3 + (d - 1) * ${BUCKETS + 1}
  local j, v, sp = find(k, field, nowOff)
  local r = 0
  if not j then
    redis.call('HSET', KEYS[k + 1], field, ARGV[1] .. ' ' .. cmark)
    redis.call('EXPIREAT', KEYS[k + 1], ARGV[2])
    r = 1
  elseif j <= ${BUCKETS} then
    local held = string.sub(v, sp + 1)
    if held == cmark then r = 2 elseif held == cmark .. '!' then r = 3 end
  else
    if v == mark then r = 2 elseif v == mark .. ' kept' then r = 3 end
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

// Says in a delivery's live marker that its dead letter is kept (where the marker is; a marker
// gone meanwhile is set again, today). KEYS: its 9 marker keys (FIND). ARGV: the second of
// today, today's bucket's expiry, compact marker, marker, field.
const MARK_KEPT = luaScript(`${FIND}
local j, v, sp = find(0, ARGV[5], tonumber(ARGV[1]))
if not j then
  redis.call('HSET', KEYS[1], ARGV[5], ARGV[1] .. ' ' .. ARGV[3] .. '!')
  redis.call('EXPIREAT', KEYS[1], ARGV[2])
elseif j <= ${BUCKETS} then
  redis.call('HSET', KEYS[j], ARGV[5], string.sub(v, 1, sp) .. ARGV[3] .. '!')
else
  redis.call('SET', KEYS[j], ARGV[4] .. ' kept', 'KEEPTTL')
end
return 1
`);

// A delivery's live marker: {'c', compact marker} from a bucket, {'l', marker} from the old key.
// KEYS: its 9 marker keys (FIND). ARGV: the second of today, field.
const READ_MARKER = luaScript(`${FIND}
local j, v, sp = find(0, ARGV[2], tonumber(ARGV[1]))
if not j then return false end
if j <= ${BUCKETS} then return {'c', string.sub(v, sp + 1)} end
return {'l', v}
`);

/** Where a delivery's marker goes: its shard (the first 6 bits of the id, 64 shards) and its field. */
function markerPlace(deliveryId: string): { shard: string; field: Buffer } {
  if (/^[0-9a-f]{32}$/.test(deliveryId)) {
    const field = Buffer.from(deliveryId, "hex");
    return { shard: String((field[0] ?? 0) >> 2), field };
  }
  // Not an id of deliveryIdOf (32 hex digits): a shard from its hash, the id as text, never
  // 16 bytes long (the length of the others).
  const shard = String((createHash("sha256").update(deliveryId).digest()[0] ?? 0) >> 2);
  const text = `~${deliveryId}`;
  return { shard, field: Buffer.from(Buffer.byteLength(text) === 16 ? `${text}~` : text) };
}

/** The clock's day, second of the day, and when today's bucket expires (unix seconds). */
function clockOf(nowMs: number): { day: number; second: number; expiresAt: number } {
  const day = Math.floor(nowMs / DAY_MS);
  return {
    day,
    second: Math.floor((nowMs - day * DAY_MS) / 1000),
    expiresAt: (day + 1) * 86_400 + DEDUPE_SECONDS + CLOCK_MARGIN_SECONDS,
  };
}

/** The keys a delivery's marker may be under: today's bucket first, 7 days back, then the old key. */
function markerKeys(
  keys: Pick<StateKeys, "dedupe" | "dedupeDay">,
  deliveryId: string,
  day: number,
): string[] {
  const { shard } = markerPlace(deliveryId);
  const out: string[] = [];
  for (let i = 0; i < BUCKETS; i++) out.push(keys.dedupeDay(day - i, shard));
  out.push(keys.dedupe(deliveryId));
  return out;
}

/** A receipt time in the marker: epoch ms in base 36 when it reads back identically. */
function compactTime(at: string): string {
  const ms = Date.parse(at);
  if (!Number.isNaN(ms) && ms >= 0 && new Date(ms).toISOString() === at) return ms.toString(36);
  return `=${encodeURIComponent(at).replace(/!/g, "%21")}`;
}

/** The compact form of a marker (`markerOf`) kept in a day's bucket. */
export const compactMarker = (r: Pick<Receipt, "receivedAt" | "receipt">): string =>
  r.receipt ? `${compactTime(r.receivedAt)} ${r.receipt}` : compactTime(r.receivedAt);

/** A marker as `markerOf` writes it (with " kept"), from its compact form. */
function expandMarker(compact: string): string {
  const kept = compact.endsWith("!");
  const body = kept ? compact.slice(0, -1) : compact;
  const sp = body.indexOf(" ");
  const time = sp < 0 ? body : body.slice(0, sp);
  const at = time.startsWith("=")
    ? decodeURIComponent(time.slice(1))
    : new Date(parseInt(time, 36)).toISOString();
  return `${at}${sp < 0 ? "" : body.slice(sp)}${kept ? " kept" : ""}`;
}

/**
 * A delivery's live de-duplication marker as `markerOf` writes it (" kept" after it once its
 * dead letter is kept), or null: what the one-key marker before issue 38 held.
 */
export async function readMarker(
  redis: RedisClient,
  keys: Pick<StateKeys, "dedupe" | "dedupeDay">,
  deliveryId: string,
  now: number = Date.now(),
): Promise<string | null> {
  const c = clockOf(now);
  const res = (await READ_MARKER.run(
    redis,
    BUCKETS + 1,
    ...markerKeys(keys, deliveryId, c.day),
    c.second,
    markerPlace(deliveryId).field,
  )) as [string, string] | null;
  if (!res) return null;
  return res[0] === "c" ? expandMarker(res[1]) : res[1];
}

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
  o: { metrics?: Pick<Metrics, "deliveries" | "deadLetters">; logger: Logger; now?: () => number },
): Promise<boolean[]> {
  if (receipts.length === 0) return [];
  const { keys } = book;
  const c = clockOf((o.now ?? Date.now)());
  const answers = (await RECORD_RECEIPTS.run(
    redis,
    receipts.length * (BUCKETS + 1) + 3,
    keys.lastDelivery,
    keys.deliveryCounts,
    keys.lastThreadDeliveryByCommunity,
    ...receipts.flatMap((r) => markerKeys(keys, r.c.deliveryId, c.day)),
    c.second,
    c.expiresAt,
    ...receipts.flatMap((r) => [
      typeOf(r.c),
      r.receivedAt,
      threadCommunity(r.c),
      compactMarker(r),
      markerOf(r),
      markerPlace(r.c.deliveryId).field,
    ]),
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
  redis: RedisClient,
  keys: Pick<StateKeys, "dedupe" | "dedupeDay">,
  now: () => number = Date.now,
): (deliveryId: string, receivedAt: string) => Promise<boolean> {
  return async (deliveryId, receivedAt) => {
    const first = await readMarker(redis, keys, deliveryId, now());
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
  o: { metrics?: Pick<Metrics, "deliveries" | "deadLetters">; logger: Logger; now?: () => number },
): Promise<void> {
  const kept = await book.health.addDeadLetter({
    at: r.receivedAt,
    reason: c.reason,
    webhookType: c.webhookType,
    error: c.error,
    body: r.body,
    deliveryId: c.deliveryId,
  });
  const clock = clockOf((o.now ?? Date.now)());
  await MARK_KEPT.run(
    redis,
    BUCKETS + 1,
    ...markerKeys(book.keys, c.deliveryId, clock.day),
    clock.second,
    clock.expiresAt,
    compactMarker(r),
    markerOf(r),
    markerPlace(c.deliveryId).field,
  );
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
