import {
  decodeRef,
  encodeCard,
  escapePart,
  idField,
  refHead,
  type MessageRef,
  type StoredCard,
} from "./card-codec.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import type { RedisClient as Redis } from "./redis.js";

export type { MessageRef, StoredCard } from "./card-codec.js";

/** A card of the layout before issue 38 (JSON); undefined when unreadable. */
export function parseLegacyCard(raw: string | undefined): StoredCard | undefined {
  if (!raw) return undefined;
  try {
    const c = JSON.parse(raw) as Partial<StoredCard>;
    if (!c.digest || typeof c.digest.threadId !== "string") return undefined;
    return {
      digest: c.digest,
      change: Array.isArray(c.change) ? c.change.filter((x) => typeof x === "string") : [],
      noLongerMatches: c.noLongerMatches === true,
      ...(typeof c.countsAtMs === "number" ? { countsAtMs: c.countsAtMs } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Orders two renderings of the same thread: newer enrichment first, then more complete. */
export function digestVersion(enrichedAtMs: number, hasSentiment: boolean): number {
  return enrichedAtMs * 2 + (hasSentiment ? 1 : 0);
}

/*
 * Layout (issue 38; docs/scaling.md "Redis memory"): a channel's refs live in one hash per
 * 30-day period (`refs:<channel>:<period>`), field = the thread, value = the compact ref and
 * card (card-codec.ts). A write goes to the current period (moving the ref out of an earlier
 * one); a read looks through the 7 periods that can hold a ref written in the last 180 days; a
 * period's hash expires 180 days after the period ends, so a ref is kept 180 to 210 days after
 * its last write (before: exactly 180). The per-thread index of channels (noteChannel) works
 * the same way in 64 shards by thread (`card-index:<shard>:<period>`).
 */
const DAY_MS = 86_400_000;
export const PERIOD_MS = 30 * DAY_MS;
export const REF_TTL_MS = 180 * DAY_MS;
/** The current period and the 6 before it: every one whose hash may hold a ref younger than 180 days. */
export const PERIODS = Math.ceil(REF_TTL_MS / PERIOD_MS) + 1;
/** Added to every expiry: a Redis clock a little ahead of the app's never drops a live ref. */
const CLOCK_MARGIN_MS = 3_600_000;
const INDEX_SHARDS = 64;

export const periodOf = (ms: number): number => Math.floor(ms / PERIOD_MS);
/** When a period's hash has no more use: 180 days after the last write it can hold. */
export const periodExpiresAt = (period: number): number =>
  (period + 1) * PERIOD_MS + REF_TTL_MS + CLOCK_MARGIN_MS;

/** The shard of a thread's index entry (FNV-1a of its id). */
export function indexShard(threadId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < threadId.length; i++) {
    h ^= threadId.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % INDEX_SHARDS;
}

/** Whether refs of the layout before issue 38 may still be in Redis (migrate-card-refs.ts clears it). */
export interface LegacyRefs {
  mayRemain: boolean;
}

// The first value of a field over the periods' hashes, newest first (KEYS); ARGV[1]: the field.
const LOOKUP = luaScript(`
for i = 1, #KEYS do
  local v = redis.call('HGET', KEYS[i], ARGV[1])
  if v then return v end
end
return false
`);

// Whether the field is in any of the periods' hashes (KEYS); ARGV[1]: the field.
const FOUND = luaScript(`
for i = 1, #KEYS do
  if redis.call('HEXISTS', KEYS[i], ARGV[1]) == 1 then return 1 end
end
return 0
`);

// Compare-and-set: writes only when the new version is newer than the stored one, so an
// older re-enrichment that finishes late can never overwrite a newer one. Either way the
// posting mark (the last key, same slot) is done with: the message it guarded is recorded.
// KEYS: the periods' hashes newest first, the posting mark. ARGV: field, version (base 36),
// head, card ('' keeps the stored one), the period to write (its index in KEYS; an earlier
// one only when folding a ref of the old layout), its expiry (ms), '1' to clear the mark.
const SET_IF_NEWER = luaScript(`
local n = #KEYS - 1
if ARGV[7] == '1' then redis.call('DEL', KEYS[#KEYS]) end
local f, card, t = ARGV[1], ARGV[4], tonumber(ARGV[5])
local at, cur
for i = 1, n do
  cur = redis.call('HGET', KEYS[i], f)
  if cur then at = i break end
end
if cur then
  local sp = string.find(cur, ' ', 1, true)
  if sp and tonumber(string.sub(cur, 1, sp - 1), 36) >= tonumber(ARGV[2], 36) then return 0 end
  if card == '' then
    local nl = string.find(cur, '\\n', 1, true)
    if nl then card = string.sub(cur, nl + 1) end
  end
  if at < t then t = at end
  if at ~= t then redis.call('HDEL', KEYS[at], f) end
end
redis.call('HSET', KEYS[t], f, ARGV[2] .. ' ' .. ARGV[3] .. '\\n' .. card)
if t == tonumber(ARGV[5]) then redis.call('PEXPIREAT', KEYS[t], ARGV[6]) end
return 1
`);

// Replaces the stored card of an existing ref whose ts is still the one given (a message
// reposted meanwhile keeps its own card), where it is. KEYS: the periods' hashes newest first.
// ARGV: field, escaped ts, card.
const SET_CARD = luaScript(`
for i = 1, #KEYS do
  local cur = redis.call('HGET', KEYS[i], ARGV[1])
  if cur then
    local sp = string.find(cur, ' ', 1, true)
    local nl = string.find(cur, '\\n', 1, true)
    if not sp or not nl then return 0 end
    local sp2 = string.find(cur, ' ', sp + 1, true)
    if not sp2 or sp2 > nl or string.sub(cur, sp + 1, sp2 - 1) ~= ARGV[2] then return 0 end
    redis.call('HSET', KEYS[i], ARGV[1], string.sub(cur, 1, nl) .. ARGV[3])
    return 1
  end
end
return 0
`);

// Deletes the posting mark (KEYS[1]) only while it still holds this attempt's time (ARGV[1]).
const UNMARK = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

// Notes channels in a thread's index entry ("channel@time,...", times in base 36 ms), which
// moves to the current period (KEYS[1]; KEYS: the periods' hashes newest first). ARGV: field,
// expiry (ms), then (channel, time) pairs: the first is kept only if the channel is not there
// yet (its first card's time stays); the others (folded from the old layout) keep the earlier.
const NOTE_CHANNELS = luaScript(`
local f = ARGV[1]
local at, cur
for i = 1, #KEYS do
  cur = redis.call('HGET', KEYS[i], f)
  if cur then at = i break end
end
local names, times = {}, {}
if cur then
  for ch, t in string.gmatch(cur, '([^,@]+)@([^,]+)') do
    names[#names + 1] = ch
    times[ch] = t
  end
end
local changed = at ~= 1
for j = 3, #ARGV, 2 do
  local ch, t = ARGV[j], ARGV[j + 1]
  local had = times[ch]
  if not had then
    names[#names + 1] = ch
    times[ch] = t
    changed = true
  elseif j > 3 and tonumber(t, 36) < tonumber(had, 36) then
    times[ch] = t
    changed = true
  end
end
if not changed then return 0 end
local parts = {}
for _, ch in ipairs(names) do parts[#parts + 1] = ch .. '@' .. times[ch] end
if at and at ~= 1 then redis.call('HDEL', KEYS[at], f) end
redis.call('HSET', KEYS[1], f, table.concat(parts, ','))
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1
`);

/** What one write of a ref records. */
interface RefWrite {
  version: number;
  ts: string;
  groupId: string;
  enrichedAtMs: number;
  card: StoredCard | undefined;
}

export class MessageRefStore {
  private readonly legacy: LegacyRefs;
  private readonly now: () => number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    o: { legacy?: LegacyRefs; now?: () => number } = {},
  ) {
    this.legacy = o.legacy ?? { mayRemain: true };
    this.now = o.now ?? Date.now;
  }

  /** The hashes a ref of the channel may be in, the current period first. */
  private refKeys(channelId: string): string[] {
    const p = periodOf(this.now());
    return Array.from({ length: PERIODS }, (_, i) => this.keys.refs(channelId, p - i));
  }

  private indexKeys(threadId: string): string[] {
    const p = periodOf(this.now());
    const shard = indexShard(threadId);
    return Array.from({ length: PERIODS }, (_, i) => this.keys.cardIndex(shard, p - i));
  }

  async get(channelId: string, threadId: string): Promise<MessageRef | undefined> {
    const value = (await LOOKUP.runBuffer(
      this.redis,
      PERIODS,
      ...this.refKeys(channelId),
      idField(threadId),
    )) as Buffer | null;
    if (value) return decodeRef(value, threadId);
    return this.legacy.mayRemain ? this.getLegacy(channelId, threadId) : undefined;
  }

  /**
   * Whether the channel shows a card of the thread: what a message delivery asks of every
   * channel following its group, without reading (and inflating) the card.
   */
  async has(channelId: string, threadId: string): Promise<boolean> {
    const found = await FOUND.run(this.redis, PERIODS, ...this.refKeys(channelId), idField(threadId));
    if (found === 1) return true;
    return this.legacy.mayRemain ? (await this.getLegacy(channelId, threadId)) !== undefined : false;
  }

  /** Replaces what the card at `ts` shows (counts, after a button); false when the ref moved on. */
  async setCard(channelId: string, threadId: string, ts: string, card: StoredCard): Promise<boolean> {
    if (this.legacy.mayRemain) await this.foldLegacyRef(channelId, threadId);
    const ref = await this.get(channelId, threadId);
    // The card is compacted against the ref it goes into (its group, its enrichment time).
    const groupId = ref?.groupId ?? card.digest.groupId;
    const enrichedAtMs = ref?.enrichedAtMs ?? 0;
    const res = await SET_CARD.run(
      this.redis,
      PERIODS,
      ...this.refKeys(channelId),
      idField(threadId),
      escapePart(ts),
      encodeCard(card, threadId, groupId, enrichedAtMs),
    );
    return res === 1;
  }

  /**
   * Records a posted or edited digest, and clears its posting mark (`markPosting`); false when
   * a newer one is already recorded.
   */
  async setIfNewer(channelId: string, threadId: string, ref: MessageRef): Promise<boolean> {
    if (this.legacy.mayRemain) await this.foldLegacyRef(channelId, threadId);
    return this.write(channelId, threadId, {
      version: digestVersion(ref.enrichedAtMs, ref.hasSentiment),
      ts: ref.ts,
      groupId: ref.groupId,
      enrichedAtMs: ref.enrichedAtMs,
      card: ref.card,
    });
  }

  private async write(
    channelId: string,
    threadId: string,
    w: RefWrite,
    o: { writtenAtMs?: number; fold?: boolean } = {},
  ): Promise<boolean> {
    const now = this.now();
    const current = periodOf(now);
    // A folded ref goes to the period of its last write, so it expires about when it did.
    const target = Math.min(PERIODS - 1, Math.max(0, current - periodOf(o.writtenAtMs ?? now)));
    const res = await SET_IF_NEWER.run(
      this.redis,
      PERIODS + 1,
      ...this.refKeys(channelId),
      this.keys.posting(channelId, threadId),
      idField(threadId),
      w.version.toString(36),
      refHead(w.ts, w.groupId),
      w.card ? encodeCard(w.card, threadId, w.groupId, w.enrichedAtMs) : "",
      target + 1,
      periodExpiresAt(current - target),
      o.fold ? "0" : "1",
    );
    return res === 1;
  }

  /**
   * Marks that a post is about to be sent, so a retry after a crash can look for it first.
   * `ifUnmarked` keeps an earlier mark (an attempt that may have posted since then): a retry
   * then looks back from the earlier time.
   */
  async markPosting(
    channelId: string,
    threadId: string,
    at: Date,
    o: { ifUnmarked?: boolean } = {},
  ): Promise<void> {
    const key = this.keys.posting(channelId, threadId);
    if (o.ifUnmarked) await this.redis.set(key, String(at.getTime()), "EX", 86_400, "NX");
    else await this.redis.set(key, String(at.getTime()), "EX", 86_400);
  }

  /**
   * Notes that a channel shows a card of the thread: the index a triage change reads to edit
   * every card of the thread (docs/using.md, digest card actions). Kept as long as the refs.
   */
  async noteChannel(channelId: string, threadId: string, at: Date): Promise<void> {
    const older = this.legacy.mayRemain ? await this.legacyChannels(threadId) : [];
    await this.note(threadId, [{ channelId, at: at.getTime() }, ...older]);
    if (older.length > 0) await this.redis.unlink(this.keys.threadCards(threadId));
  }

  /** Notes channels in the thread's index entry: the first unless there, the others by their earlier time. */
  private async note(threadId: string, channels: { channelId: string; at: number }[]): Promise<void> {
    await NOTE_CHANNELS.run(
      this.redis,
      PERIODS,
      ...this.indexKeys(threadId),
      idField(threadId),
      periodExpiresAt(periodOf(this.now())),
      ...channels.flatMap((c) => [escapePart(c.channelId), Math.max(0, c.at).toString(36)]),
    );
  }

  /** The channels that show a card of the thread, the first posted first. */
  async channelsOf(threadId: string): Promise<string[]> {
    const [entry, older] = await Promise.all([
      LOOKUP.run(this.redis, PERIODS, ...this.indexKeys(threadId), idField(threadId)) as Promise<
        string | null
      >,
      this.legacy.mayRemain ? this.legacyChannels(threadId) : [],
    ]);
    const first = new Map<string, number>();
    for (const c of [...parseIndexEntry(entry ?? ""), ...older]) {
      const had = first.get(c.channelId);
      if (had === undefined || c.at < had) first.set(c.channelId, c.at);
    }
    return [...first].sort(([a, ta], [b, tb]) => ta - tb || (a < b ? -1 : a > b ? 1 : 0)).map(([c]) => c);
  }

  /**
   * Ends a mark this attempt made, when its post was refused unsent (a 429): nothing can have
   * been posted since, so the next attempt has nothing to look for. Only that very mark: one an
   * earlier attempt left (`ifUnmarked` kept it) still guards what that attempt may have posted.
   */
  async unmarkPosting(channelId: string, threadId: string, at: Date): Promise<void> {
    await UNMARK.run(this.redis, 1, this.keys.posting(channelId, threadId), String(at.getTime()));
  }

  async postingSince(channelId: string, threadId: string): Promise<number | undefined> {
    const key = this.keys.posting(channelId, threadId);
    const old = this.keys.legacyPosting(channelId, threadId);
    const [v, w] = await Promise.all([
      this.redis.get(key),
      this.legacy.mayRemain && old !== key ? this.redis.get(old) : null,
    ]);
    const at = v ?? w;
    return at ? Number(at) : undefined;
  }

  /** A ref of the layout before issue 38, read as it was. */
  private async getLegacy(channelId: string, threadId: string): Promise<MessageRef | undefined> {
    const h = await this.redis.hgetall(this.keys.messageRef(channelId, threadId));
    if (!h.ts) return undefined;
    const card = parseLegacyCard(h.card);
    return {
      ts: h.ts,
      enrichedAtMs: Number(h.enrichedAtMs ?? 0),
      hasSentiment: h.hasSentiment === "1",
      groupId: h.groupId ?? "",
      ...(card ? { card } : {}),
    };
  }

  /**
   * Moves a ref of the layout before issue 38 into the periods' hashes (unless a newer one is
   * there already), to the period of its last write, and deletes it. Answers whether one was there.
   */
  async foldLegacyRef(channelId: string, threadId: string): Promise<boolean> {
    const key = this.keys.messageRef(channelId, threadId);
    const [h, ttl] = await Promise.all([this.redis.hgetall(key), this.redis.pttl(key)]);
    if (Object.keys(h).length === 0) return false;
    if (h.ts) {
      const enrichedAtMs = Number(h.enrichedAtMs ?? 0);
      const hasSentiment = h.hasSentiment === "1";
      const version = h.version ? Number(h.version) : digestVersion(enrichedAtMs, hasSentiment);
      await this.write(
        channelId,
        threadId,
        {
          version: Number.isSafeInteger(version) ? version : digestVersion(enrichedAtMs, hasSentiment),
          ts: h.ts,
          groupId: h.groupId ?? "",
          enrichedAtMs,
          card: parseLegacyCard(h.card),
        },
        { fold: true, writtenAtMs: ttl > 0 ? this.now() - (REF_TTL_MS - ttl) : this.now() },
      );
    }
    await this.redis.unlink(key);
    return true;
  }

  /**
   * Moves a thread's index of the layout before issue 38 (a sorted set) into the periods' hashes,
   * and deletes it. Answers whether one was there.
   */
  async foldLegacyIndex(threadId: string): Promise<boolean> {
    const older = await this.legacyChannels(threadId);
    if (older.length === 0) return false;
    await this.note(threadId, older);
    await this.redis.unlink(this.keys.threadCards(threadId));
    return true;
  }

  private async legacyChannels(threadId: string): Promise<{ channelId: string; at: number }[]> {
    const flat = await this.redis.zrange(this.keys.threadCards(threadId), "0", "-1", "WITHSCORES");
    const out: { channelId: string; at: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      out.push({ channelId: flat[i] ?? "", at: Number(flat[i + 1] ?? 0) });
    }
    return out;
  }
}

/** An index entry's channels and first times. */
function parseIndexEntry(entry: string): { channelId: string; at: number }[] {
  if (!entry) return [];
  return entry.split(",").flatMap((part) => {
    const at = part.lastIndexOf("@");
    if (at <= 0) return [];
    const channelId = decodeURIComponent(part.slice(0, at));
    return [{ channelId, at: parseInt(part.slice(at + 1), 36) }];
  });
}
