import type { Redis as OneRedis } from "ioredis";
import type { Logger } from "../log.js";
import { stateKeys } from "./keys.js";
import { tryLock } from "./lock.js";
import { MessageRefStore, type LegacyRefs } from "./message-refs.js";
import { readOldKey } from "./migrate-thread-triage.js";
import { isCluster, type RedisClient as Redis } from "./redis.js";

/*
 * Issue 38: card refs moved from one hash per (channel, thread) (`ref:<channel>:<thread>`) to
 * one hash per channel and 30-day period, and the per-thread index of channels from one sorted
 * set per thread (`thread-cards:<thread>`) to 64 shards per period (message-refs.ts). The store
 * reads the old keys when a ref or index entry is not found, and folds one in when it writes
 * it, for as long as `LegacyRefs.mayRemain`; this migration folds every old key of every
 * workspace of the deployment at start (after migrate-thread-triage.ts, whose index it reads),
 * then says so: the stores of this process stop looking for old keys (one read fewer per miss).
 * Idempotent (a fold never overwrites a newer ref, and deletes the old key), so a pass cut
 * short is finished by the next start; a marker makes every later start one GET. Processes
 * starting together: one migrates (a lock), the others keep reading the old keys until they
 * restart. De-duplication markers are not migrated: the old ones are read until they expire
 * (7 days). Run the new version only once no process of an older one is writing refs.
 */

export const MIGRATION = "card-refs";
const LOCK_MS = 10 * 60_000;
const SCAN_COUNT = 1_000;

export interface CardRefsMigrationCounts {
  refs: number;
  indexes: number;
}

export type CardRefsMigrationResult =
  { ran: true; counts: CardRefsMigrationCounts } | { ran: false; reason: "done" | "busy" };

/** A thread's index of the old layout, read from its name. */
function oldIndexOf(prefix: string, key: string): { ws: string; threadId: string } | undefined {
  const m = /^(.+?):state:thread-cards:(.+)$/.exec(key);
  const ws = m?.[1];
  if (!m || !ws || !m[2]) return undefined;
  // The deployment's own prefix or one workspace's (`<prefix>:w:<id>`).
  if (ws !== prefix && !(ws.startsWith(`${prefix}:w:`) && !ws.slice(prefix.length + 3).includes(":"))) {
    return undefined;
  }
  return { ws, threadId: m[2] };
}

async function* scanNode(node: OneRedis, pattern: string): AsyncGenerator<string[]> {
  let cursor = "0";
  do {
    const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", SCAN_COUNT);
    cursor = next;
    if (keys.length > 0) yield keys;
  } while (cursor !== "0");
}

/**
 * Folds every card ref and thread index of the old layout into the new one, once; sets
 * `legacy.mayRemain` to false when none is left (now or by an earlier start). Never throws
 * for a key it cannot fold: that key is logged and left, and the next start tries again.
 */
export async function migrateCardRefs(
  redis: Redis,
  prefix: string,
  logger: Logger,
  legacy: LegacyRefs,
  o: { now?: () => number } = {},
): Promise<CardRefsMigrationResult> {
  const cluster = isCluster(redis);
  const own = stateKeys(prefix, { cluster });
  const marker = own.migrated(MIGRATION);
  if ((await redis.exists(marker)) === 1) {
    legacy.mayRemain = false;
    return { ran: false, reason: "done" };
  }
  const release = await tryLock(redis, own.lock(`migrate-${MIGRATION}`), LOCK_MS);
  if (!release) {
    logger.info("another process is migrating card refs; reading old refs meanwhile");
    return { ran: false, reason: "busy" };
  }
  try {
    const stores = new Map<string, MessageRefStore>();
    // Stores that still read and fold old keys, whatever this process's flag says.
    const storeOf = (ws: string) => {
      let s = stores.get(ws);
      if (!s) {
        s = new MessageRefStore(redis, stateKeys(ws, { cluster }), { legacy: { mayRemain: true }, ...o });
        stores.set(ws, s);
      }
      return s;
    };
    const counts: CardRefsMigrationCounts = { refs: 0, indexes: 0 };
    let failed = 0;
    const nodes: OneRedis[] = isCluster(redis) ? redis.nodes("master") : [redis];
    // The indexes first: folding a ref does not touch them.
    for (const [pattern, fold] of [
      [
        `${prefix}:*state:thread-cards:*`,
        async (key: string) => {
          const old = oldIndexOf(prefix, key);
          if (old && (await storeOf(old.ws).foldLegacyIndex(old.threadId))) counts.indexes++;
        },
      ],
      [
        `${prefix}:*state:ref:*`,
        async (key: string) => {
          const old = readOldKey(prefix, key);
          if (old?.kind !== "ref") return;
          if (await storeOf(old.ws).foldLegacyRef(old.channelId, old.threadId)) counts.refs++;
        },
      ],
    ] as const) {
      for (const node of nodes) {
        for await (const batch of scanNode(node, pattern)) {
          for (const key of batch) {
            try {
              await fold(key);
            } catch (err) {
              failed++;
              logger.warn({ err, key }, "migration: could not fold this key into the card refs' layout");
            }
          }
        }
      }
    }
    if (failed === 0) {
      await redis.set(marker, new Date().toISOString());
      legacy.mayRemain = false;
    }
    logger.info({ ...counts, failed }, "card refs migrated to one hash per channel and period");
    return { ran: true, counts };
  } finally {
    await release();
  }
}
