import type { ThreadDigest } from "../domain/thread-digest.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import type { RedisClient as Redis } from "./redis.js";

/*
 * Where each person's watch DM of a thread is, so that a later change edits it instead of
 * sending another (docs/using.md, `watch`): one hash per thread, userId -> ref. A DM is claimed
 * before it is sent (two changes arriving together send one DM), then recorded with its ts;
 * a line of a gathered DM (daily, or after quiet hours) points at that DM, whose list is kept
 * beside it so the edit can re-render the whole message.
 */

/** A watch DM of one thread for one person. */
export type WatchDmRef =
  | {
      kind: "card";
      channel: string;
      ts: string;
      watchId: string;
      /** What the DM shows (the edit compares and re-renders from it). */
      digest: ThreadDigest;
      sentAtMs: number;
      /** False once the thread left every watch of the person (the DM says so); absent: it matches. */
      stillMatches?: boolean;
    }
  | { kind: "gathered"; channel: string; ts: string; sentAtMs: number }
  /** Being sent now (or a send that died: reclaimed after CLAIM_STALE_MS). */
  | { kind: "claimed"; atMs: number };

/** One line of a gathered DM. */
export interface GatheredLine {
  digest: ThreadDigest;
  watchId: string;
}

/** What a gathered DM lists, kept so that a change of one of its threads re-renders it. */
export interface GatheredDm {
  reason: "daily" | "held";
  /** Start of what it covers (the oldest line's first match). */
  sinceMs: number;
  lines: GatheredLine[];
}

/** As long as a card's ref (message-refs.ts). */
const REF_TTL_MS = 180 * 24 * 3600 * 1000;
/** A claim whose send never recorded a ts: after this long another change may send it. */
export const CLAIM_STALE_MS = 10 * 60_000;

// 1: claimed now; 0: a DM exists or is being sent.
const CLAIM = luaScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur then
  local t = string.match(cur, '^claimed|(%d+)$')
  if not t or tonumber(t) > tonumber(ARGV[2]) - tonumber(ARGV[3]) then return 0 end
end
redis.call('HSET', KEYS[1], ARGV[1], 'claimed|' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);
const RELEASE = luaScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
if cur and string.match(cur, '^claimed|') then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
`);

function parse(raw: string): WatchDmRef | undefined {
  const claimed = /^claimed\|(\d+)$/.exec(raw);
  if (claimed) return { kind: "claimed", atMs: Number(claimed[1]) };
  try {
    const r = JSON.parse(raw) as Partial<WatchDmRef> & Record<string, unknown>;
    if (typeof r.channel !== "string" || typeof r.ts !== "string") return undefined;
    const sentAtMs = typeof r.sentAtMs === "number" ? r.sentAtMs : 0;
    if (r.kind === "gathered") return { kind: "gathered", channel: r.channel, ts: r.ts, sentAtMs };
    const digest = r.digest as ThreadDigest | undefined;
    if (r.kind !== "card" || !digest || typeof digest.threadId !== "string") return undefined;
    return {
      kind: "card",
      channel: r.channel,
      ts: r.ts,
      watchId: typeof r.watchId === "string" ? r.watchId : "",
      digest,
      sentAtMs,
      ...(r.stillMatches === false ? { stillMatches: false } : {}),
    };
  } catch {
    return undefined;
  }
}

export class WatchDmRefs {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "watchDms" | "watchGathered">,
  ) {}

  /** Everyone with a DM of this thread (claimed ones too: they are being sent). */
  async forThread(threadId: string): Promise<Map<string, WatchDmRef>> {
    const h = await this.redis.hgetall(this.keys.watchDms(threadId));
    const out = new Map<string, WatchDmRef>();
    for (const [userId, raw] of Object.entries(h)) {
      const ref = parse(raw);
      if (ref) out.set(userId, ref);
    }
    return out;
  }

  async get(userId: string, threadId: string): Promise<WatchDmRef | undefined> {
    const raw = await this.redis.hget(this.keys.watchDms(threadId), userId);
    return raw ? parse(raw) : undefined;
  }

  /** True when this call may send the person's DM of the thread (nobody sent or is sending it). */
  async claim(userId: string, threadId: string, at: Date): Promise<boolean> {
    const res = await CLAIM.run(
      this.redis,
      1,
      this.keys.watchDms(threadId),
      userId,
      String(at.getTime()),
      String(CLAIM_STALE_MS),
      String(REF_TTL_MS),
    );
    return res === 1;
  }

  /** Gives a claim back (the DM could not be sent): the next change may try again. */
  async release(userId: string, threadId: string): Promise<void> {
    await RELEASE.run(this.redis, 1, this.keys.watchDms(threadId), userId);
  }

  /** Records a sent (or edited) DM of the thread. */
  async set(userId: string, threadId: string, ref: Exclude<WatchDmRef, { kind: "claimed" }>): Promise<void> {
    const key = this.keys.watchDms(threadId);
    await this.redis.hset(key, userId, JSON.stringify(ref));
    await this.redis.pexpire(key, REF_TTL_MS);
  }

  /** Keeps what a gathered DM lists (and points each of its threads at it). */
  async setGathered(userId: string, channel: string, ts: string, dm: GatheredDm, at: Date): Promise<void> {
    await this.redis.set(this.keys.watchGathered(userId, ts), JSON.stringify(dm), "PX", REF_TTL_MS);
    await Promise.all(
      dm.lines.map((l) =>
        this.set(userId, l.digest.threadId, { kind: "gathered", channel, ts, sentAtMs: at.getTime() }),
      ),
    );
  }

  async getGathered(userId: string, ts: string): Promise<GatheredDm | undefined> {
    const raw = await this.redis.get(this.keys.watchGathered(userId, ts));
    if (!raw) return undefined;
    try {
      const g = JSON.parse(raw) as Partial<GatheredDm>;
      if (!Array.isArray(g.lines)) return undefined;
      return {
        reason: g.reason === "daily" ? "daily" : "held",
        sinceMs: typeof g.sinceMs === "number" ? g.sinceMs : 0,
        lines: g.lines.filter((l): l is GatheredLine => typeof l?.digest?.threadId === "string"),
      };
    } catch {
      return undefined;
    }
  }

  /** Replaces what a gathered DM lists (one of its threads changed). */
  async replaceGathered(userId: string, ts: string, dm: GatheredDm): Promise<void> {
    await this.redis.set(this.keys.watchGathered(userId, ts), JSON.stringify(dm), "PX", REF_TTL_MS);
  }
}
