import type { RedisClient as Redis } from "./redis.js";
import type { TriageState } from "../domain/thread-change.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";

/** A thread card somewhere in the workspace, as Home lists it. */
export interface CardRef {
  channelId: string;
  threadId: string;
  /** When it was posted, handled or assigned (the list's order). */
  atMs: number;
}

/** Triage lives as long as the card it belongs to (message-refs.ts). */
const TRIAGE_TTL_MS = 180 * 24 * 3600 * 1000;
/** Home shows a few of each; the indexes keep this many of the newest. */
const INDEX_KEEP = 500;

// Each script touches one key: atomic without spanning hash slots (Redis Cluster).
// Returns 1 when the state changed, 0 when it already was so (a double click acts once).
const MARK_HANDLED = luaScript(`
if redis.call('HEXISTS', KEYS[1], 'handledBy') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'handledBy', ARGV[1], 'handledAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);
const REOPEN = luaScript(`
if redis.call('HEXISTS', KEYS[1], 'handledBy') == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'handledBy', 'handledAt')
return 1
`);
// Returns the previous assignee ('' for none), or false when it already was this user.
const ASSIGN = luaScript(`
local cur = redis.call('HGET', KEYS[1], 'assignee')
if cur == ARGV[1] then return false end
redis.call('HSET', KEYS[1], 'assignee', ARGV[1], 'assignedBy', ARGV[2], 'assignedAt', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return cur or ''
`);
const TOGGLE_FOLLOW = luaScript(`
if redis.call('SREM', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

const member = (channelId: string, threadId: string) => `${channelId} ${threadId}`;
function parseMember(m: string, score: string): CardRef | undefined {
  const [channelId, threadId] = m.split(" ");
  return channelId && threadId ? { channelId, threadId, atMs: Number(score) } : undefined;
}

/**
 * Triage of thread cards, per (channel, thread): handled (by whom, when), the assignee and
 * the followers. Every change says whether it changed anything, so a double click or a
 * repeated request has one effect. Small indexes let Home list open, handled and assigned
 * threads without scanning.
 */
export class TriageStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<
      StateKeys,
      "triage" | "followers" | "recentCards" | "handledCards" | "assignedTo" | "pressOnce"
    >,
  ) {}

  async get(channelId: string, threadId: string): Promise<TriageState> {
    const [h, followers] = await Promise.all([
      this.redis.hgetall(this.keys.triage(channelId, threadId)),
      this.redis.scard(this.keys.followers(channelId, threadId)),
    ]);
    return {
      ...(h.handledBy ? { handled: { by: h.handledBy, atMs: Number(h.handledAt ?? 0) } } : {}),
      ...(h.assignee
        ? { assignee: { user: h.assignee, by: h.assignedBy ?? "", atMs: Number(h.assignedAt ?? 0) } }
        : {}),
      followers,
    };
  }

  /** Marks handled (true) or reopens (false); false when it already was so. */
  async setHandled(
    channelId: string,
    threadId: string,
    handled: boolean,
    by: string,
    at: Date,
  ): Promise<boolean> {
    const key = this.keys.triage(channelId, threadId);
    const changed = handled
      ? await MARK_HANDLED.run(this.redis, 1, key, by, String(at.getTime()), String(TRIAGE_TTL_MS))
      : await REOPEN.run(this.redis, 1, key);
    if (changed !== 1) return false;
    const m = member(channelId, threadId);
    if (handled) await this.index(this.keys.handledCards, m, at.getTime());
    else await this.redis.zrem(this.keys.handledCards, m);
    return true;
  }

  /** Assigns the thread; false when it already was assigned to that user. */
  async assign(channelId: string, threadId: string, user: string, by: string, at: Date): Promise<boolean> {
    const prev = await ASSIGN.run(
      this.redis,
      1,
      this.keys.triage(channelId, threadId),
      user,
      by,
      String(at.getTime()),
      String(TRIAGE_TTL_MS),
    );
    if (typeof prev !== "string") return false;
    const m = member(channelId, threadId);
    if (prev) await this.redis.zrem(this.keys.assignedTo(prev), m);
    await this.index(this.keys.assignedTo(user), m, at.getTime());
    return true;
  }

  /** Follows, or unfollows when `user` already follows; says which. */
  async toggleFollow(channelId: string, threadId: string, user: string): Promise<"followed" | "unfollowed"> {
    const r = await TOGGLE_FOLLOW.run(
      this.redis,
      1,
      this.keys.followers(channelId, threadId),
      user,
      String(TRIAGE_TTL_MS),
    );
    return r === 1 ? "followed" : "unfollowed";
  }

  async followersOf(channelId: string, threadId: string): Promise<string[]> {
    return (await this.redis.smembers(this.keys.followers(channelId, threadId))).sort();
  }

  /**
   * True the first time one user presses one kind of button on one card within `windowMs`:
   * a double click arrives as two requests, and a toggle must act once.
   */
  async firstPress(
    userId: string,
    channelId: string,
    threadId: string,
    action: string,
    windowMs = 3_000,
  ): Promise<boolean> {
    const ok = await this.redis.set(
      this.keys.pressOnce(userId, channelId, threadId, action),
      "1",
      "PX",
      windowMs,
      "NX",
    );
    return ok === "OK";
  }

  /** Remembers a posted card, so that Home can list open threads. */
  async noteCard(channelId: string, threadId: string, at: Date): Promise<void> {
    await this.index(this.keys.recentCards, member(channelId, threadId), at.getTime(), true);
  }

  /** Which of these threads are marked handled in this channel (for the weekly summary). */
  async handledAmong(channelId: string, threadIds: readonly string[]): Promise<Set<string>> {
    const by = await Promise.all(
      threadIds.map((t) => this.redis.hexists(this.keys.triage(channelId, t), "handledBy")),
    );
    return new Set(threadIds.filter((_, i) => by[i] === 1));
  }

  /** How many of these threads are marked handled in this channel ("handled in Slack: N"). */
  async countHandled(channelId: string, threadIds: readonly string[]): Promise<number> {
    return (await this.handledAmong(channelId, threadIds)).size;
  }

  /**
   * What Home lists for one user: threads assigned to them and not handled, the latest
   * handled, and the latest posted that nobody handled yet; newest first, `limit` of each.
   */
  async forHome(
    userId: string,
    limit: number,
  ): Promise<{ assigned: CardRef[]; handled: CardRef[]; open: CardRef[] }> {
    const read = async (key: string, n: number) => {
      const flat = await this.redis.zrevrange(key, 0, n - 1, "WITHSCORES");
      const out: CardRef[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const ref = parseMember(flat[i] ?? "", flat[i + 1] ?? "0");
        if (ref) out.push(ref);
      }
      return out;
    };
    // Read more than shown: handled ones are left out of the other two lists.
    const [assignedAll, handled, recent] = await Promise.all([
      read(this.keys.assignedTo(userId), limit * 4),
      read(this.keys.handledCards, limit),
      read(this.keys.recentCards, limit * 4),
    ]);
    const notHandled = async (refs: CardRef[]) => {
      const flags = await Promise.all(
        refs.map((r) => this.redis.hexists(this.keys.triage(r.channelId, r.threadId), "handledBy")),
      );
      return refs.filter((_, i) => flags[i] === 0).slice(0, limit);
    };
    const [assigned, open] = await Promise.all([notHandled(assignedAll), notHandled(recent)]);
    return { assigned, handled, open };
  }

  private async index(key: string, m: string, atMs: number, onlyNew = false): Promise<void> {
    if (onlyNew) await this.redis.zadd(key, "NX", atMs, m);
    else await this.redis.zadd(key, atMs, m);
    await this.redis.zremrangebyrank(key, 0, -(INDEX_KEEP + 1));
  }
}
