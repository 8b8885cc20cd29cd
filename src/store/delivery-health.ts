import type { RedisClient as Redis } from "./redis.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";

// Keeps a dead letter unless the very same one is kept already (its receipt seen again after
// a process died between keeping it and marking its receipt): KEYS: the list, the counts;
// ARGV: the entry, the limit, the reason. 1: kept; 0: it was there.
const KEEP_DEAD_LETTER = luaScript(`
if redis.call('LPOS', KEYS[1], ARGV[1]) then return 0 end
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
return 1
`);

// Counts a message in its group's day and keeps the day 120 days: one command, so that the
// messages of a batch go to Redis in one write (a MULTI is a write of its own on an
// auto-pipelined connection). KEYS: the day's HyperLogLog; ARGV: the message id, the TTL.
const RECORD_MESSAGE = luaScript(`
redis.call('PFADD', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
`);

export const DEAD_LETTER_LIMIT = 1_000;
const DEAD_LETTER_BODY_LIMIT = 16_384;
const ACTIVITY_TTL_SECONDS = 120 * 86_400;

export interface DeadLetter {
  at: string;
  /** `unknown_secret`: kept while Redis was down (multi-workspace mode), then found to be nobody's. */
  reason: "invalid_json" | "invalid_envelope" | "invalid_payload" | "unknown_type" | "unknown_secret";
  webhookType: string | undefined;
  error: string;
  /** The delivery as received, cut to 16 KiB. */
  body: string;
  deliveryId: string;
}

/** Day key (UTC) of an ISO time, for per-day activity counts. */
export const dayOf = (iso: string | Date): string => new Date(iso).toISOString().slice(0, 10);

/**
 * What operators look at: when each webhook type last delivered, the dead letters (bounded),
 * and message activity per group and day (HyperLogLog of message ids, so a repeated
 * delivery of the same message never counts twice).
 */
export class DeliveryHealthStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
  ) {}

  async lastDeliveries(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.lastDelivery);
  }

  /** ISO time of the last `chatthread-crud` delivery, by communityId. */
  async lastThreadDeliveries(): Promise<Record<string, string>> {
    return this.redis.hgetall(this.keys.lastThreadDeliveryByCommunity);
  }

  async deliveryCounts(): Promise<Record<string, number>> {
    const h = await this.redis.hgetall(this.keys.deliveryCounts);
    return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Number(v)]));
  }

  /**
   * Keeps a dead letter, once: the same one again (same receipt, same body) is not kept or
   * counted twice. False when it was kept already.
   */
  async addDeadLetter(d: DeadLetter): Promise<boolean> {
    const entry = { ...d, body: d.body.slice(0, DEAD_LETTER_BODY_LIMIT) };
    const kept = await KEEP_DEAD_LETTER.run(
      this.redis,
      2,
      this.keys.deadLetters,
      this.keys.deadLetterCounts,
      JSON.stringify(entry),
      DEAD_LETTER_LIMIT,
      d.reason,
    );
    return Number(kept) === 1;
  }

  async deadLetters(limit = 20): Promise<DeadLetter[]> {
    const raws = await this.redis.lrange(this.keys.deadLetters, 0, limit - 1);
    return raws.map((r) => JSON.parse(r) as DeadLetter);
  }

  async deadLetterCounts(): Promise<{ total: number; kept: number; byReason: Record<string, number> }> {
    const [h, kept] = await Promise.all([
      this.redis.hgetall(this.keys.deadLetterCounts),
      this.redis.llen(this.keys.deadLetters),
    ]);
    const byReason = Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Number(v)]));
    return { total: Object.values(byReason).reduce((a, b) => a + b, 0), kept, byReason };
  }

  /** A followed group's messages, each counted once in its UTC day (the intake pump drops other groups'). */
  async recordMessage(groupId: string, messageId: string, at: string): Promise<void> {
    const key = this.keys.activity(groupId, dayOf(at));
    await RECORD_MESSAGE.run(this.redis, 1, key, messageId, ACTIVITY_TTL_SECONDS);
  }

  /** Messages seen per day for one group, for the given UTC days. */
  async activity(groupId: string, days: string[]): Promise<Record<string, number>> {
    const pipe = this.redis.pipeline();
    for (const d of days) pipe.pfcount(this.keys.activity(groupId, d));
    const res = (await pipe.exec()) ?? [];
    return Object.fromEntries(days.map((d, i) => [d, Number(res[i]?.[1] ?? 0)]));
  }
}
