import type { RedisClient as Redis } from "./redis.js";
import type { TriageState } from "../domain/thread-change.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";

/** A thread of the workspace, as Home lists it. */
export interface ThreadRef {
  threadId: string;
  /** When its first card was posted, or when it was handled or assigned (the list's order). */
  atMs: number;
}

/** Triage lives as long as the cards it belongs to (message-refs.ts). */
export const TRIAGE_TTL_MS = 180 * 24 * 3600 * 1000;
/** Longer than any channel's card of one re-enrichment can wait for its turn. */
const FOLLOWERS_TOLD_TTL_MS = 7 * 24 * 3600 * 1000;
/** Home shows a few of each; the indexes keep this many of the newest. */
const INDEX_KEEP = 500;

// Each script touches one key: atomic without spanning hash slots (Redis Cluster).
// Returns 1 when the state changed, 0 when it already was so (a double click acts once).
const MARK_HANDLED = luaScript(`
if redis.call('HEXISTS', KEYS[1], 'handledBy') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'handledBy', ARGV[1], 'handledAt', ARGV[2], 'handledIn', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);
const REOPEN = luaScript(`
if redis.call('HEXISTS', KEYS[1], 'handledBy') == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'handledBy', 'handledAt', 'handledIn')
return 1
`);
// Returns the previous assignee ('' for none), or false when it already was this user.
const ASSIGN = luaScript(`
local cur = redis.call('HGET', KEYS[1], 'assignee')
if cur == ARGV[1] then return false end
redis.call('HSET', KEYS[1], 'assignee', ARGV[1], 'assignedBy', ARGV[2], 'assignedAt', ARGV[3], 'assignedIn', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return cur or ''
`);
const TOGGLE_FOLLOW = luaScript(`
if redis.call('SREM', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

/** Where a press happened: the channel of the card (a watch DM's press names none). */
export interface PressedIn {
  channelId?: string | undefined;
}

/** A thread's triage hash as the store writes it (the migration writes the same fields). */
export function triageOf(h: Record<string, string>, followers: number): TriageState {
  return {
    ...(h.handledBy
      ? {
          handled: {
            by: h.handledBy,
            atMs: Number(h.handledAt ?? 0),
            ...(h.handledIn ? { channelId: h.handledIn } : {}),
          },
        }
      : {}),
    ...(h.assignee
      ? {
          assignee: {
            user: h.assignee,
            by: h.assignedBy ?? "",
            atMs: Number(h.assignedAt ?? 0),
            ...(h.assignedIn ? { channelId: h.assignedIn } : {}),
          },
        }
      : {}),
    followers,
  };
}

/**
 * Triage of threads, per thread within the workspace (docs/using.md, digest card actions): handled
 * (by whom, when), the assignee and the followers, whatever card (any channel's, or a watch DM)
 * it was pressed on. Every change says whether it changed anything, so a double click or a
 * repeated request has one effect. Small indexes of thread ids let Home list open, handled and
 * assigned threads without scanning, each thread once.
 */
export class TriageStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<
      StateKeys,
      | "threadTriage"
      | "threadFollowers"
      | "recentThreads"
      | "handledThreads"
      | "assignedThreads"
      | "pressOnce"
      | "followersTold"
    >,
  ) {}

  async get(threadId: string): Promise<TriageState> {
    const [h, followers] = await Promise.all([
      this.redis.hgetall(this.keys.threadTriage(threadId)),
      this.redis.scard(this.keys.threadFollowers(threadId)),
    ]);
    return triageOf(h, followers);
  }

  /** Marks handled (true) or reopens (false); false when it already was so. */
  async setHandled(
    threadId: string,
    handled: boolean,
    by: string,
    at: Date,
    where: PressedIn = {},
  ): Promise<boolean> {
    const key = this.keys.threadTriage(threadId);
    const changed = handled
      ? await MARK_HANDLED.run(
          this.redis,
          1,
          key,
          by,
          String(at.getTime()),
          String(TRIAGE_TTL_MS),
          where.channelId ?? "",
        )
      : await REOPEN.run(this.redis, 1, key);
    if (changed !== 1) return false;
    if (handled) await this.index(this.keys.handledThreads, threadId, at.getTime());
    else await this.redis.zrem(this.keys.handledThreads, threadId);
    return true;
  }

  /** Assigns the thread; false when it already was assigned to that user. */
  async assign(
    threadId: string,
    user: string,
    by: string,
    at: Date,
    where: PressedIn = {},
  ): Promise<boolean> {
    const prev = await ASSIGN.run(
      this.redis,
      1,
      this.keys.threadTriage(threadId),
      user,
      by,
      String(at.getTime()),
      String(TRIAGE_TTL_MS),
      where.channelId ?? "",
    );
    if (typeof prev !== "string") return false;
    if (prev) await this.redis.zrem(this.keys.assignedThreads(prev), threadId);
    await this.index(this.keys.assignedThreads(user), threadId, at.getTime());
    return true;
  }

  /** Follows, or unfollows when `user` already follows; says which. */
  async toggleFollow(threadId: string, user: string): Promise<"followed" | "unfollowed"> {
    const r = await TOGGLE_FOLLOW.run(
      this.redis,
      1,
      this.keys.threadFollowers(threadId),
      user,
      String(TRIAGE_TTL_MS),
    );
    return r === 1 ? "followed" : "unfollowed";
  }

  async followersOf(threadId: string): Promise<string[]> {
    return (await this.redis.smembers(this.keys.threadFollowers(threadId))).sort();
  }

  /** Whether the followers were already sent their DM of this re-enrichment (by another channel's edit). */
  async followersTold(threadId: string, enrichedAtMs: number): Promise<boolean> {
    return (await this.redis.exists(this.keys.followersTold(threadId, enrichedAtMs))) === 1;
  }

  /** Notes that the followers' DMs of this re-enrichment are queued: the thread's other cards send none. */
  async noteFollowersTold(threadId: string, enrichedAtMs: number): Promise<void> {
    await this.redis.set(this.keys.followersTold(threadId, enrichedAtMs), "1", "PX", FOLLOWERS_TOLD_TTL_MS);
  }

  /**
   * True the first time one user presses one kind of button on one thread within `windowMs`:
   * a double click arrives as two requests (also on two cards of the thread), and a toggle
   * must act once.
   */
  async firstPress(userId: string, threadId: string, action: string, windowMs = 3_000): Promise<boolean> {
    const ok = await this.redis.set(this.keys.pressOnce(userId, threadId, action), "1", "PX", windowMs, "NX");
    return ok === "OK";
  }

  /** Remembers a thread's first posted card, so that Home can list open threads (once each). */
  async noteCard(threadId: string, at: Date): Promise<void> {
    await this.index(this.keys.recentThreads, threadId, at.getTime(), true);
  }

  /** Which of these threads are marked handled (for the weekly summary). */
  async handledAmong(threadIds: readonly string[]): Promise<Set<string>> {
    const by = await Promise.all(
      threadIds.map((t) => this.redis.hexists(this.keys.threadTriage(t), "handledBy")),
    );
    return new Set(threadIds.filter((_, i) => by[i] === 1));
  }

  /** How many of these threads are marked handled ("handled in Slack: N"). */
  async countHandled(threadIds: readonly string[]): Promise<number> {
    return (await this.handledAmong(threadIds)).size;
  }

  /**
   * What Home lists for one user: threads assigned to them and not handled, the latest
   * handled, and the latest posted that nobody handled yet; newest first, `limit` of each,
   * each thread once per list however many channels show it.
   */
  async forHome(
    userId: string,
    limit: number,
  ): Promise<{ assigned: ThreadRef[]; handled: ThreadRef[]; open: ThreadRef[] }> {
    const read = async (key: string, n: number) => {
      const flat = await this.redis.zrevrange(key, 0, n - 1, "WITHSCORES");
      const out: ThreadRef[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const threadId = flat[i];
        if (threadId) out.push({ threadId, atMs: Number(flat[i + 1] ?? 0) });
      }
      return out;
    };
    // Read more than shown: handled ones are left out of the other two lists.
    const [assignedAll, handled, recent] = await Promise.all([
      read(this.keys.assignedThreads(userId), limit * 4),
      read(this.keys.handledThreads, limit),
      read(this.keys.recentThreads, limit * 4),
    ]);
    const notHandled = async (refs: ThreadRef[]) => {
      const flags = await Promise.all(
        refs.map((r) => this.redis.hexists(this.keys.threadTriage(r.threadId), "handledBy")),
      );
      return refs.filter((_, i) => flags[i] === 0).slice(0, limit);
    };
    const [assigned, open] = await Promise.all([notHandled(assignedAll), notHandled(recent)]);
    return { assigned, handled, open };
  }

  private async index(key: string, member: string, atMs: number, onlyNew = false): Promise<void> {
    if (onlyNew) await this.redis.zadd(key, "NX", atMs, member);
    else await this.redis.zadd(key, atMs, member);
    await this.redis.zremrangebyrank(key, 0, -(INDEX_KEEP + 1));
  }
}
