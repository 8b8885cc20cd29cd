import type { ThreadDigest } from "../domain/thread-digest.js";
import type { RedisClient as Redis } from "./redis.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";

/**
 * What a card shows, kept with its ref: a button press or a counts update re-renders the card
 * from it, and the next re-enrichment compares against it ("what changed").
 */
export interface StoredCard {
  digest: ThreadDigest;
  /** The "what changed" parts of the last re-enrichment edit (empty on a first post). */
  change: string[];
  /** The thread left this channel's filters; the card still follows it (rule 10). */
  noLongerMatches: boolean;
  /** When counts were last read from the listing (chatmessage-crud), if ever. */
  countsAtMs?: number;
}

/** Where a thread's digest lives in one channel, and which enrichment it shows. */
export interface MessageRef {
  ts: string;
  /** `payload.timestamp` of the enrichment shown, in ms since the epoch. */
  enrichedAtMs: number;
  /** Whether the shown digest already carries a sentiment (a later edit may add it). */
  hasSentiment: boolean;
  groupId: string;
  /** Absent on refs written before cards were kept, or when the stored JSON is unreadable. */
  card?: StoredCard;
}

function parseCard(raw: string | undefined): StoredCard | undefined {
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

// Compare-and-set: writes only when the new version is newer than the stored one, so an
// older re-enrichment that finishes late can never overwrite a newer one. Either way the
// posting mark (KEYS[2], same slot) is done with: the message it guarded is recorded.
const SET_IF_NEWER = luaScript(`
redis.call('DEL', KEYS[2])
local cur = redis.call('HGET', KEYS[1], 'version')
if cur and tonumber(cur) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'ts', ARGV[2], 'enrichedAtMs', ARGV[3], 'hasSentiment', ARGV[4], 'groupId', ARGV[5])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'card', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return 1
`);

// Replaces the stored card of an existing ref whose ts is still the one given (a message
// reposted meanwhile keeps its own card).
const SET_CARD = luaScript(`
if redis.call('HGET', KEYS[1], 'ts') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'card', ARGV[2])
return 1
`);

const REF_TTL_MS = 180 * 24 * 3600 * 1000;

export class MessageRefStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
  ) {}

  async get(channelId: string, threadId: string): Promise<MessageRef | undefined> {
    const h = await this.redis.hgetall(this.keys.messageRef(channelId, threadId));
    if (!h.ts) return undefined;
    const card = parseCard(h.card);
    return {
      ts: h.ts,
      enrichedAtMs: Number(h.enrichedAtMs ?? 0),
      hasSentiment: h.hasSentiment === "1",
      groupId: h.groupId ?? "",
      ...(card ? { card } : {}),
    };
  }

  /** Replaces what the card at `ts` shows (counts, after a button); false when the ref moved on. */
  async setCard(channelId: string, threadId: string, ts: string, card: StoredCard): Promise<boolean> {
    const res = await SET_CARD.run(
      this.redis,
      1,
      this.keys.messageRef(channelId, threadId),
      ts,
      JSON.stringify(card),
    );
    return res === 1;
  }

  /**
   * Records a posted or edited digest, and clears its posting mark (`markPosting`); false when
   * a newer one is already recorded.
   */
  async setIfNewer(channelId: string, threadId: string, ref: MessageRef): Promise<boolean> {
    const res = await SET_IF_NEWER.run(
      this.redis,
      2,
      this.keys.messageRef(channelId, threadId),
      this.keys.posting(channelId, threadId),
      String(digestVersion(ref.enrichedAtMs, ref.hasSentiment)),
      ref.ts,
      String(ref.enrichedAtMs),
      ref.hasSentiment ? "1" : "0",
      ref.groupId,
      String(REF_TTL_MS),
      ref.card ? JSON.stringify(ref.card) : "",
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
    const key = this.keys.threadCards(threadId);
    await this.redis.zadd(key, "NX", at.getTime(), channelId);
    await this.redis.pexpire(key, REF_TTL_MS);
  }

  /** The channels that show a card of the thread, the first posted first. */
  async channelsOf(threadId: string): Promise<string[]> {
    return this.redis.zrange(this.keys.threadCards(threadId), "0", "-1");
  }

  async postingSince(channelId: string, threadId: string): Promise<number | undefined> {
    const v = await this.redis.get(this.keys.posting(channelId, threadId));
    return v ? Number(v) : undefined;
  }
}
