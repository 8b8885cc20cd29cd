import type { RedisClient as Redis } from "../store/redis.js";
import type { StateKeys } from "../store/keys.js";
import type { BaselineEntry } from "./decide-thread.js";

/** When a group's watch began and when it was last read. */
export interface BaselineMeta {
  startedAt: number;
  readAt: number;
}

export interface GroupBaseline {
  meta: BaselineMeta | undefined;
  entries: Map<string, BaselineEntry>;
}

const META = "~meta";
/** Threads remembered per group: the newest page plus those that scrolled out, so one scrolling back in is known. */
export const BASELINE_MAX_ENTRIES = 2_000;

/**
 * The reconciler's memory, one Redis hash per followed group (threadId -> compact entry, plus
 * the meta field), and a set of the groups that have one. Keys sit under
 * `keys.reconcileBaseline`; the `~` names cannot clash with a group id.
 */
export class BaselineStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    private readonly maxEntries = BASELINE_MAX_ENTRIES,
  ) {}

  // Read at each use: in multi-workspace mode `keys` are the current workspace's.
  get groupsKey(): string {
    return this.keys.reconcileBaseline("~groups");
  }

  async load(groupId: string): Promise<GroupBaseline> {
    const h = await this.redis.hgetall(this.keys.reconcileBaseline(groupId));
    const entries = new Map<string, BaselineEntry>();
    let meta: BaselineMeta | undefined;
    for (const [k, v] of Object.entries(h)) {
      const parsed = parse(v);
      if (!parsed) continue;
      if (k === META) {
        const m = parsed as Partial<BaselineMeta>;
        if (typeof m.startedAt === "number" && typeof m.readAt === "number") {
          meta = { startedAt: m.startedAt, readAt: m.readAt };
        }
      } else {
        const e = parsed as { f?: unknown; s?: unknown; p?: unknown };
        if (typeof e.f !== "string" || typeof e.s !== "number") continue;
        entries.set(k, { f: e.f, seen: e.s, ...(typeof e.p === "number" ? { pending: e.p } : {}) });
      }
    }
    return { meta, entries };
  }

  /**
   * Writes the reading: the meta, every entry that changed, and drops the oldest entries
   * beyond the cap (never one of `keep`, the threads just read).
   */
  async save(
    groupId: string,
    meta: BaselineMeta,
    all: Map<string, BaselineEntry>,
    changed: Iterable<string>,
    keep: Set<string>,
  ): Promise<void> {
    const key = this.keys.reconcileBaseline(groupId);
    const fields: string[] = [META, JSON.stringify(meta)];
    for (const id of changed) {
      const e = all.get(id);
      if (e)
        fields.push(
          id,
          JSON.stringify({ f: e.f, s: e.seen, ...(e.pending !== undefined ? { p: e.pending } : {}) }),
        );
    }
    const drop: string[] = [];
    if (all.size > this.maxEntries) {
      const oldest = [...all.entries()]
        .filter(([id]) => !keep.has(id))
        .sort((a, b) => a[1].seen - b[1].seen)
        .slice(0, all.size - this.maxEntries)
        .map(([id]) => id);
      drop.push(...oldest);
    }
    const m = this.redis
      .multi()
      .hset(key, ...fields)
      .sadd(this.groupsKey, groupId);
    if (drop.length > 0) m.hdel(key, ...drop);
    await m.exec();
  }

  /** Forgets a group (no longer followed): a later subscribe starts from a fresh baseline. */
  async drop(groupId: string): Promise<void> {
    await this.redis.multi().del(this.keys.reconcileBaseline(groupId)).srem(this.groupsKey, groupId).exec();
  }

  async groups(): Promise<string[]> {
    return this.redis.smembers(this.groupsKey);
  }
}

function parse(v: string): unknown {
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}
