import type { Reminder } from "../domain/reminder.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import type { RedisClient as Redis } from "./redis.js";

/*
 * Reminders set from a card (`digest.remind`), per person within one workspace's prefix: a hash
 * per person, id -> reminder. The id is made of the card and the minute it is due, so a double
 * click records one reminder, and the delayed job that fires it (jobs/remind.ts) has the same
 * id in every process.
 */

export type { Reminder };

/** Enough for a day's follow-ups; past it, the person is told to cancel some first. */
export const MAX_REMINDERS_PER_PERSON = 25;
/** A reminder that never fired (its job lost) is forgotten after this long past its time. */
const FORGET_AFTER_MS = 7 * 24 * 3600 * 1000;

// 1: added; 0: already there (a double click); -1: over the limit.
const ADD = luaScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
return 1
`);

function parse(userId: string, id: string, raw: string): Reminder | undefined {
  try {
    const r = JSON.parse(raw) as Partial<Reminder>;
    if (typeof r.channelId !== "string" || typeof r.threadId !== "string" || typeof r.dueAtMs !== "number") {
      return undefined;
    }
    return {
      id,
      userId,
      channelId: r.channelId,
      cardTs: typeof r.cardTs === "string" ? r.cardTs : "",
      threadId: r.threadId,
      groupId: typeof r.groupId === "string" ? r.groupId : "",
      title: typeof r.title === "string" ? r.title : "",
      dueAtMs: r.dueAtMs,
      createdAtMs: typeof r.createdAtMs === "number" ? r.createdAtMs : 0,
    };
  } catch {
    return undefined;
  }
}

export type AddReminderResult = "added" | "exists" | "limit";

export class ReminderStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "reminders">,
    readonly limit = MAX_REMINDERS_PER_PERSON,
  ) {}

  async add(r: Reminder): Promise<AddReminderResult> {
    const { id, userId, ...rest } = r;
    const res = await ADD.run(
      this.redis,
      1,
      this.keys.reminders(userId),
      id,
      JSON.stringify(rest),
      String(this.limit),
      String(Math.max(0, r.dueAtMs - r.createdAtMs) + FORGET_AFTER_MS),
    );
    return res === 1 ? "added" : res === 0 ? "exists" : "limit";
  }

  /** The person's pending reminders, soonest first. */
  async list(userId: string): Promise<Reminder[]> {
    const h = await this.redis.hgetall(this.keys.reminders(userId));
    return Object.entries(h)
      .map(([id, raw]) => parse(userId, id, raw))
      .filter((r): r is Reminder => r !== undefined)
      .sort((a, b) => a.dueAtMs - b.dueAtMs || (a.id < b.id ? -1 : 1));
  }

  async get(userId: string, id: string): Promise<Reminder | undefined> {
    const raw = await this.redis.hget(this.keys.reminders(userId), id);
    return raw ? parse(userId, id, raw) : undefined;
  }

  /** Cancels (or, once sent, forgets) a reminder; false when it was not there. */
  async remove(userId: string, id: string): Promise<boolean> {
    return (await this.redis.hdel(this.keys.reminders(userId), id)) === 1;
  }
}
