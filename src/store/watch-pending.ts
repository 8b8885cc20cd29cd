import { entryVersion } from "../domain/digest-batch.js";
import type { ThreadDigest } from "../domain/thread-digest.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import type { RedisClient as Redis } from "./redis.js";

/*
 * A person's watch matches waiting for their daily DM or for their quiet hours to end: one
 * hash per person, threadId -> `<version>|<dueAtMs>|<firstSeenMs>|<reason>|<watchId>|<digest
 * JSON>`. The prefix lets the scripts compare without decoding the JSON (a Lua round trip would
 * turn `[]` into `{}`). The latest state of a thread wins and keeps the earliest due time, so
 * a thread that changes twice before the DM is one line.
 */

export interface PendingWatchMatch {
  digest: ThreadDigest;
  watchId: string;
  reason: "daily" | "held";
  /** When it goes out: the daily time, or the end of the quiet hours. */
  dueAtMs: number;
  /** When it first matched (the gathered DM says "since"). */
  firstSeenMs: number;
}

const ADD = luaScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local due, first = ARGV[3], ARGV[4]
if cur then
  local v, d, f = string.match(cur, '^(%d+)|(%d+)|(%d+)|')
  if v then
    if tonumber(d) < tonumber(due) then due = d end
    first = f
    if tonumber(v) >= tonumber(ARGV[2]) then
      redis.call('HSET', KEYS[1], ARGV[1], v .. '|' .. due .. '|' .. first .. string.sub(cur, #v + #d + #f + 3))
      return 0
    end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. due .. '|' .. first .. '|' .. ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`);

// Takes (returns and removes) every entry due by ARGV[1].
const TAKE_DUE = luaScript(`
local all = redis.call('HGETALL', KEYS[1])
local out = {}
for i = 1, #all, 2 do
  local d = string.match(all[i + 1], '^%d+|(%d+)|')
  if d and tonumber(d) <= tonumber(ARGV[1]) then
    redis.call('HDEL', KEYS[1], all[i])
    table.insert(out, all[i + 1])
  end
end
return out
`);

/** Kept a little longer than a day plus quiet hours; a person gone for weeks loses old matches. */
const PENDING_TTL_MS = 8 * 24 * 3600 * 1000;

function parse(raw: string): PendingWatchMatch | undefined {
  const m = /^(\d+)\|(\d+)\|(\d+)\|(daily|held)\|([^|]*)\|([\s\S]*)$/.exec(raw);
  if (!m) return undefined;
  try {
    const digest = JSON.parse(m[6] ?? "") as ThreadDigest;
    if (typeof digest.threadId !== "string") return undefined;
    return {
      digest,
      dueAtMs: Number(m[2]),
      firstSeenMs: Number(m[3]),
      reason: m[4] === "daily" ? "daily" : "held",
      watchId: m[5] ?? "",
    };
  } catch {
    return undefined;
  }
}

export class WatchPendingStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "watchPending">,
  ) {}

  /** Adds a match (or a newer state of a waiting one); false when a newer state was already there. */
  async add(userId: string, m: PendingWatchMatch): Promise<boolean> {
    const enrichedAtMs = Date.parse(m.digest.enrichedAt);
    const version = entryVersion(Number.isNaN(enrichedAtMs) ? 0 : enrichedAtMs, Boolean(m.digest.sentiment));
    const res = await ADD.run(
      this.redis,
      1,
      this.keys.watchPending(userId),
      m.digest.threadId,
      String(version),
      String(Math.round(m.dueAtMs)),
      String(Math.round(m.firstSeenMs)),
      `${m.reason}|${m.watchId.replace(/\|/g, "")}|${JSON.stringify(m.digest)}`,
      String(PENDING_TTL_MS),
    );
    return res === 1;
  }

  /** Takes every match due by `nowMs` (each once, whatever the number of processes asking). */
  async takeDue(userId: string, nowMs: number): Promise<PendingWatchMatch[]> {
    const raw = (await TAKE_DUE.run(
      this.redis,
      1,
      this.keys.watchPending(userId),
      String(nowMs),
    )) as string[];
    return raw.map(parse).filter((m): m is PendingWatchMatch => m !== undefined);
  }

  /** What waits, without taking it (Home, tests). */
  async peek(userId: string): Promise<PendingWatchMatch[]> {
    const h = await this.redis.hgetall(this.keys.watchPending(userId));
    return Object.values(h)
      .map(parse)
      .filter((m): m is PendingWatchMatch => m !== undefined)
      .sort((a, b) => a.dueAtMs - b.dueAtMs);
  }
}
