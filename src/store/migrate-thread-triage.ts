import type { Redis as OneRedis } from "ioredis";
import type { Logger } from "../log.js";
import { stateKeys, type StateKeys } from "./keys.js";
import { tryLock } from "./lock.js";
import { luaScript } from "./lua-script.js";
import { isCluster, type RedisClient as Redis } from "./redis.js";
import { TRIAGE_TTL_MS } from "./triage.js";

/*
 * Issue 35: triage moved from one channel's card to the thread (store/triage.ts). Before, each
 * (channel, thread) had its own hash (`triage:<channel>:<thread>`: handled, assignee) and set of
 * followers (`followers:<channel>:<thread>`), and Home's indexes held "<channel> <thread>"
 * members. This migration folds them into the per-thread layout, for every workspace of the
 * deployment (the single workspace's keys under `<prefix>:state:`, each installed workspace's
 * under `<prefix>:w:<id>:state:`):
 * - handled: a thread handled in any channel stays handled, by the first mark (the earliest);
 * - assignee: the latest assignment of the thread wins (a thread has one assignee now); an
 *   earlier one that differs is logged;
 * - followers: every follower of any channel's card follows the thread (one DM per change);
 * - Home's open list: each thread once, at its first card's time; the handled and assigned
 *   lists are rebuilt from the marks above;
 * - the index of the channels showing a card of each thread (message-refs.ts), from the refs.
 *
 * It runs AT START (start-roles.ts), before any role serves, not lazily: the old keys name the
 * channel first and nothing indexed them by thread, so the marks of one thread cannot be found
 * from the thread when it is pressed or shown; one pass over the keys (SCAN, never KEYS; every
 * master of a cluster) finds them all. It is idempotent (marks merge by earliest and latest,
 * sets by union, and each old key is deleted once folded in), so a pass cut short is finished by
 * the next start; a marker makes every later start one GET. Processes starting together: one
 * migrates (a lock), the others start without waiting (what they read meanwhile may miss an old
 * mark for a few seconds; nothing is lost).
 */

export const MIGRATION = "thread-triage";
const LOCK_MS = 10 * 60_000;
const SCAN_COUNT = 1_000;

// Folds one old handled mark in: the earliest mark of the thread wins. 1 when it was taken.
const MERGE_HANDLED = luaScript(`
local cur = redis.call('HGET', KEYS[1], 'handledAt')
if cur and tonumber(cur) <= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'handledBy', ARGV[1], 'handledAt', ARGV[2], 'handledIn', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`);
// Folds one old assignment in: the latest of the thread wins. "taken|<the assignee it replaced>"
// or "kept|<the later assignee kept>" ('' for none).
const MERGE_ASSIGNED = luaScript(`
local at = redis.call('HGET', KEYS[1], 'assignedAt')
local cur = redis.call('HGET', KEYS[1], 'assignee') or ''
if at and tonumber(at) >= tonumber(ARGV[3]) then return 'kept|' .. cur end
redis.call('HSET', KEYS[1], 'assignee', ARGV[1], 'assignedBy', ARGV[2], 'assignedAt', ARGV[3], 'assignedIn', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 'taken|' .. cur
`);

export interface MigrationCounts {
  /** Old per-(channel, thread) triage hashes folded in. */
  triage: number;
  /** Old per-(channel, thread) follower sets folded in. */
  followers: number;
  /** Entries of the old open lists carried over. */
  open: number;
  /** Card refs noted in the per-thread index of channels. */
  cards: number;
  /** Assignments that lost to a later one of the same thread. */
  assigneesReplaced: number;
}

export type MigrationResult =
  { ran: true; counts: MigrationCounts } | { ran: false; reason: "done" | "busy" };

/** One old key, read from its name. */
type OldKey =
  | { kind: "triage"; ws: string; channelId: string; threadId: string }
  | { kind: "followers"; ws: string; channelId: string; threadId: string }
  | { kind: "recent"; ws: string }
  | { kind: "derived"; ws: string }
  | { kind: "ref"; ws: string; channelId: string; threadId: string };

/** The workspace prefix a key belongs to: the deployment's own, or `<prefix>:w:<id>`. */
function workspaceOf(prefix: string, p: string): string | undefined {
  if (p === prefix) return p;
  const rest = p.startsWith(`${prefix}:w:`) ? p.slice(prefix.length + 3) : "";
  return rest && !rest.includes(":") ? p : undefined;
}

/** `<channel>:<thread>`, the channel first (channel ids hold no ':'). */
function channelThread(s: string): { channelId: string; threadId: string } | undefined {
  const at = s.indexOf(":");
  if (at <= 0 || at === s.length - 1) return undefined;
  return { channelId: s.slice(0, at), threadId: s.slice(at + 1) };
}

/** What an old key is, or undefined for any other key (the new layout's among them). */
export function readOldKey(prefix: string, key: string): OldKey | undefined {
  const m = /^(.+?):state:(triage|followers|ref):(.+)$/.exec(key);
  if (!m) return undefined;
  const ws = workspaceOf(prefix, m[1] ?? "");
  const kind = m[2];
  const rest = m[3] ?? "";
  if (!ws) return undefined;
  if (kind === "ref") {
    // On a cluster the pair is the key's hash tag: `ref:{<channel>:<thread>}`.
    const inner = rest.startsWith("{") && rest.endsWith("}") ? rest.slice(1, -1) : rest;
    const ct = channelThread(inner);
    return ct ? { kind: "ref", ws, ...ct } : undefined;
  }
  if (kind === "triage") {
    if (rest === "recent") return { kind: "recent", ws };
    if (rest === "handled" || rest.startsWith("assigned:")) return { kind: "derived", ws };
  }
  const ct = channelThread(rest);
  if (!ct) return undefined;
  return kind === "triage" ? { kind: "triage", ws, ...ct } : { kind: "followers", ws, ...ct };
}

type Keys = Pick<
  StateKeys,
  "threadTriage" | "threadFollowers" | "threadCards" | "recentThreads" | "handledThreads" | "assignedThreads"
>;

class Folder {
  readonly counts: MigrationCounts = { triage: 0, followers: 0, open: 0, cards: 0, assigneesReplaced: 0 };
  private readonly keysOf = new Map<string, Keys>();

  constructor(
    private readonly redis: Redis,
    private readonly cluster: boolean,
    private readonly logger: Logger,
  ) {}

  private keys(ws: string): Keys {
    let k = this.keysOf.get(ws);
    if (!k) {
      // `ws` is a whole workspace prefix: its state keys are built the same way as at run time.
      k = stateKeys(ws, { cluster: this.cluster });
      this.keysOf.set(ws, k);
    }
    return k;
  }

  async fold(key: string, old: OldKey): Promise<void> {
    const k = this.keys(old.ws);
    switch (old.kind) {
      case "ref":
        // The first post time is not in the ref: 0 keeps it before any card posted from now on.
        await this.redis.zadd(k.threadCards(old.threadId), "NX", 0, old.channelId);
        await this.redis.pexpire(k.threadCards(old.threadId), TRIAGE_TTL_MS);
        this.counts.cards++;
        return; // the ref itself stays: it is still the card's
      case "triage":
        await this.foldTriage(k, key, old);
        this.counts.triage++;
        break;
      case "followers": {
        const users = await this.redis.smembers(key);
        if (users.length > 0) {
          await this.redis.sadd(k.threadFollowers(old.threadId), ...users);
          await this.redis.pexpire(k.threadFollowers(old.threadId), TRIAGE_TTL_MS);
        }
        this.counts.followers++;
        break;
      }
      case "recent": {
        const flat = await this.redis.zrevrange(key, 0, -1, "WITHSCORES");
        for (let i = 0; i + 1 < flat.length; i += 2) {
          const ct = (flat[i] ?? "").split(" ");
          const threadId = ct[1];
          if (!threadId) continue;
          // Each thread once, at its first card's time.
          await this.redis.zadd(k.recentThreads, "LT", Number(flat[i + 1] ?? 0), threadId);
          this.counts.open++;
        }
        break;
      }
      case "derived":
        // Home's handled and assigned lists of the old layout: rebuilt from the marks.
        break;
    }
    await this.redis.unlink(key);
  }

  private async foldTriage(
    k: Keys,
    key: string,
    old: { channelId: string; threadId: string; ws: string },
  ): Promise<void> {
    const h = await this.redis.hgetall(key);
    const target = k.threadTriage(old.threadId);
    if (h.handledBy) {
      const at = Number(h.handledAt ?? 0);
      const taken = await MERGE_HANDLED.run(
        this.redis,
        1,
        target,
        h.handledBy,
        String(at),
        old.channelId,
        String(TRIAGE_TTL_MS),
      );
      if (taken === 1) await this.redis.zadd(k.handledThreads, at, old.threadId);
    }
    if (h.assignee) {
      const at = Number(h.assignedAt ?? 0);
      const res = String(
        await MERGE_ASSIGNED.run(
          this.redis,
          1,
          target,
          h.assignee,
          h.assignedBy ?? "",
          String(at),
          old.channelId,
          String(TRIAGE_TTL_MS),
        ),
      );
      const [outcome, other = ""] = [res.slice(0, res.indexOf("|")), res.slice(res.indexOf("|") + 1)];
      if (outcome === "taken") {
        if (other && other !== h.assignee) await this.redis.zrem(k.assignedThreads(other), old.threadId);
        await this.redis.zadd(k.assignedThreads(h.assignee), at, old.threadId);
      }
      const lost = outcome === "taken" ? other : h.assignee;
      const kept = outcome === "taken" ? h.assignee : other;
      if (lost && kept && lost !== kept) {
        this.counts.assigneesReplaced++;
        this.logger.info(
          { workspace: old.ws, threadId: old.threadId, kept, replaced: lost },
          "migration: two channels assigned one thread to different people; the later assignment is kept",
        );
      }
    }
  }
}

/** Every key under the prefix that looks like state, from one node (SCAN, never KEYS). */
async function* scanNode(node: OneRedis, prefix: string): AsyncGenerator<string[]> {
  let cursor = "0";
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", `${prefix}:*state:*`, "COUNT", SCAN_COUNT);
    cursor = next;
    if (keys.length > 0) yield keys;
  } while (cursor !== "0");
}

/**
 * Folds the per-channel triage of every workspace of the deployment into per-thread triage,
 * once (see the top of this file). Never throws for a key it cannot read: that key is logged
 * and left, and the marker is not set, so the next start tries again.
 */
export async function migrateThreadTriage(
  redis: Redis,
  prefix: string,
  logger: Logger,
): Promise<MigrationResult> {
  const cluster = isCluster(redis);
  const own = stateKeys(prefix, { cluster });
  const marker = own.migrated(MIGRATION);
  if ((await redis.exists(marker)) === 1) return { ran: false, reason: "done" };
  const release = await tryLock(redis, own.lock(`migrate-${MIGRATION}`), LOCK_MS);
  if (!release) {
    logger.info("another process is migrating triage to threads; starting without waiting");
    return { ran: false, reason: "busy" };
  }
  try {
    const folder = new Folder(redis, cluster, logger);
    let failed = 0;
    const nodes: OneRedis[] = isCluster(redis) ? redis.nodes("master") : [redis];
    for (const node of nodes) {
      for await (const batch of scanNode(node, prefix)) {
        for (const key of batch) {
          const old = readOldKey(prefix, key);
          if (!old) continue;
          try {
            await folder.fold(key, old);
          } catch (err) {
            failed++;
            logger.warn({ err, key }, "migration: could not fold this key into per-thread triage");
          }
        }
      }
    }
    if (failed === 0) await redis.set(marker, new Date().toISOString());
    logger.info({ ...folder.counts, failed }, "triage migrated from channels to threads");
    return { ran: true, counts: folder.counts };
  } finally {
    await release();
  }
}
