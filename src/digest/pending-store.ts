import type { RedisClient as Redis } from "../store/redis.js";
import type { PendingEntry } from "../domain/digest-batch.js";
import type { ThreadDigest } from "../domain/thread-digest.js";
import type { StateKeys } from "../store/keys.js";
import { luaScript } from "../store/lua-script.js";

/*
 * A channel's pending digest is one Redis hash: field `<groupId>:<threadId>`, value
 * `<version>|<isNew 0/1>|<firstSeenMs>|<digest JSON>`. The prefix lets the scripts compare
 * versions without decoding (and re-encoding, which would turn `[]` into `{}`) the JSON.
 * The same hash remembers what posted digests showed: field `s|<groupId>:<threadId>`, value
 * `<version>|<shownAtMs>`, so a state already shown is not listed again (one key per channel:
 * every script touches one slot).
 */

// mergePending (domain/digest-batch.ts) in one step: an older or equal version changes
// nothing; a newer one replaces the state but keeps isNew and firstSeenMs.
const ADD = luaScript(`
local cur = redis.call('HGET', KEYS[1], ARGV[1])
local isNew, first = ARGV[3], ARGV[4]
if not cur then
  local shown = redis.call('HGET', KEYS[1], 's|' .. ARGV[1])
  local sv = shown and string.match(shown, '^(%d+)')
  if sv then
    if tonumber(sv) >= tonumber(ARGV[2]) then return 0 end
    isNew = '0'
  end
end
if cur then
  local v, n, f = string.match(cur, '^(%d+)|(%d)|(%d+)|')
  if v and tonumber(v) >= tonumber(ARGV[2]) then return 0 end
  if v then isNew, first = n, f end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. isNew .. '|' .. first .. '|' .. ARGV[5])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
return 1
`);

// Records what a posted batch showed, then drops those entries, each only while it is still in
// the state that was shown: a thread re-enriched after the batch was taken stays for the next
// period. Shown records older than ARGV[2] are forgotten (a thread quiet for two weeks that
// the reconciler brings back is listed as changed once).
const REMOVE_SHOWN = luaScript(`
local now, cutoff = ARGV[1], tonumber(ARGV[2])
local removed = 0
for i = 3, #ARGV, 2 do
  local sf = 's|' .. ARGV[i]
  local prev = redis.call('HGET', KEYS[1], sf)
  local pv = prev and string.match(prev, '^(%d+)')
  if not pv or tonumber(pv) < tonumber(ARGV[i + 1]) then
    redis.call('HSET', KEYS[1], sf, ARGV[i + 1] .. '|' .. now)
  end
  local cur = redis.call('HGET', KEYS[1], ARGV[i])
  if cur and string.match(cur, '^(%d+)|') == ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
    removed = removed + 1
  end
end
local all = redis.call('HGETALL', KEYS[1])
for j = 1, #all, 2 do
  if string.sub(all[j], 1, 2) == 's|' then
    local at = string.match(all[j + 1], '|(%d+)$')
    if at and tonumber(at) < cutoff then redis.call('HDEL', KEYS[1], all[j]) end
  end
end
return removed
`);

/** How long a shown state is remembered. */
const SHOWN_KEEP_MS = 14 * 86_400_000;

/** A pending digest outlives any period (24 h at most) by far; it only guards against leaks. */
const PENDING_TTL_MS = 8 * 86_400_000;

export const pendingField = (groupId: string, threadId: string) => `${groupId}:${threadId}`;

function parseEntry(raw: string): PendingEntry | undefined {
  const m = /^(\d+)\|([01])\|(\d+)\|/.exec(raw);
  if (!m) return undefined;
  try {
    const digest = JSON.parse(raw.slice(m[0].length)) as ThreadDigest;
    if (typeof digest.threadId !== "string" || typeof digest.groupId !== "string") return undefined;
    return { digest, version: Number(m[1]), isNew: m[2] === "1", firstSeenMs: Number(m[3]) };
  } catch {
    return undefined;
  }
}

/** The pending digests of every channel in digest mode. */
export class PendingDigestStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "digestPending">,
  ) {}

  /** Adds or updates a thread (latest state wins); false when the stored or shown state was as new. */
  async add(channelId: string, e: PendingEntry): Promise<boolean> {
    const r = await ADD.run(
      this.redis,
      1,
      this.keys.digestPending(channelId),
      pendingField(e.digest.groupId, e.digest.threadId),
      String(e.version),
      e.isNew ? "1" : "0",
      String(e.firstSeenMs),
      JSON.stringify(e.digest),
      String(PENDING_TTL_MS),
    );
    return Number(r) === 1;
  }

  /** Every pending thread of a channel; unreadable entries (and shown records) are left out. */
  async list(channelId: string): Promise<PendingEntry[]> {
    const h = await this.redis.hgetall(this.keys.digestPending(channelId));
    return Object.entries(h)
      .filter(([field]) => !field.startsWith("s|"))
      .map(([, raw]) => parseEntry(raw))
      .filter((e): e is PendingEntry => e !== undefined);
  }

  async count(channelId: string): Promise<number> {
    return (await this.list(channelId)).length;
  }

  /**
   * Records what a posted batch showed and removes those entries, each while unchanged;
   * returns how many were removed.
   */
  async removeShown(channelId: string, shown: readonly PendingEntry[], nowMs = Date.now()): Promise<number> {
    if (shown.length === 0) return 0;
    const args = shown.flatMap((e) => [pendingField(e.digest.groupId, e.digest.threadId), String(e.version)]);
    return Number(
      await REMOVE_SHOWN.run(
        this.redis,
        1,
        this.keys.digestPending(channelId),
        String(nowMs),
        String(nowMs - SHOWN_KEEP_MS),
        ...args,
      ),
    );
  }

  /** Forgets the pending threads of one group (unsubscribed, or no longer in digest mode). */
  async dropGroup(channelId: string, groupId: string): Promise<void> {
    const key = this.keys.digestPending(channelId);
    const fields = (await this.redis.hkeys(key)).filter(
      (f) => f.startsWith(`${groupId}:`) || f.startsWith(`s|${groupId}:`),
    );
    if (fields.length > 0) await this.redis.hdel(key, ...fields);
  }
}
