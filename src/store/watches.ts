import * as z from "zod";
import {
  MAX_WATCHES_PER_PERSON,
  normalizeSpec,
  sameSpec,
  type Watch,
  type WatchSpec,
} from "../domain/watch.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import { sharedReads } from "./shared-reads.js";
import type { RedisClient as Redis } from "./redis.js";

/*
 * Personal watches, per person, within one workspace's prefix (rule 12): a hash per person
 * (id -> watch), the set of people with watches (what matching a thread reads), and each
 * person's last id. The three keys share the `watch` hash tag, so the limit is checked and the
 * watch added in one script.
 */

// Returns the new id, or -1 when the person already has the most watches allowed.
const ADD = luaScript(`
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[2]) then return -1 end
local id = redis.call('HINCRBY', KEYS[3], ARGV[1], 1)
redis.call('HSET', KEYS[1], tostring(id), ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
return id
`);
// Returns how many were removed; the person leaves the watchers when none is left.
const REMOVE = luaScript(`
local n = 0
if ARGV[2] == '*' then
  n = redis.call('HLEN', KEYS[1])
  redis.call('DEL', KEYS[1])
else
  n = redis.call('HDEL', KEYS[1], ARGV[2])
end
if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return n
`);
const REPLACE = luaScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`);

const clock = z.number().int().min(0).max(1439);
/** A stored watch, read tolerantly: a field this version does not know is ignored. */
const storedSchema = z.object({
  words: z.array(z.string()).default([]),
  group: z.object({ id: z.string(), name: z.string() }).optional(),
  filters: z
    .object({
      sentiments: z.array(z.string()).optional(),
      excludeSentiments: z.array(z.string()).optional(),
      questions: z.boolean().optional(),
      unanswered: z.boolean().optional(),
      minMessages: z.number().optional(),
      minParticipants: z.number().optional(),
      keywords: z.array(z.string()).optional(),
      excludeKeywords: z.array(z.string()).optional(),
    })
    .default({}),
  daily: clock.optional(),
  quiet: z.object({ from: clock, to: clock }).optional(),
  createdAt: z.string().default(""),
});

function parse(userId: string, id: string, raw: string): Watch | undefined {
  try {
    const s = storedSchema.safeParse(JSON.parse(raw));
    if (!s.success) return undefined;
    const { createdAt, ...spec } = s.data;
    return { ...normalizeSpec(spec), id, userId, createdAt };
  } catch {
    return undefined;
  }
}

const encode = (spec: WatchSpec, createdAt: string) => JSON.stringify({ ...normalizeSpec(spec), createdAt });

export type AddWatchResult =
  | { ok: true; watch: Watch; count: number }
  | { ok: false; reason: "limit"; count: number; limit: number }
  | { ok: false; reason: "duplicate"; watch: Watch; position: number };

export class WatchStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "watches" | "watchers" | "watchIds">,
    readonly limit = MAX_WATCHES_PER_PERSON,
  ) {}

  /** Adds a watch under the person's limit; the same watch twice is said, not stored twice. */
  async add(userId: string, spec: WatchSpec, at: Date): Promise<AddWatchResult> {
    const existing = await this.list(userId);
    const same = existing.findIndex((w) => sameSpec(w, spec));
    if (same >= 0)
      return { ok: false, reason: "duplicate", watch: existing[same] as Watch, position: same + 1 };
    const createdAt = at.toISOString();
    const id = Number(
      await ADD.run(
        this.redis,
        3,
        this.keys.watches(userId),
        this.keys.watchers,
        this.keys.watchIds,
        userId,
        String(this.limit),
        encode(spec, createdAt),
      ),
    );
    if (id < 0) return { ok: false, reason: "limit", count: existing.length, limit: this.limit };
    return {
      ok: true,
      watch: { ...normalizeSpec(spec), id: String(id), userId, createdAt },
      count: existing.length + 1,
    };
  }

  /** The person's watches, oldest first (the numbers `watch list` shows follow this order). */
  async list(userId: string): Promise<Watch[]> {
    const h = await this.redis.hgetall(this.keys.watches(userId));
    return Object.entries(h)
      .map(([id, raw]) => parse(userId, id, raw))
      .filter((w): w is Watch => w !== undefined)
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  async get(userId: string, id: string): Promise<Watch | undefined> {
    const raw = await this.redis.hget(this.keys.watches(userId), id);
    return raw ? parse(userId, id, raw) : undefined;
  }

  /** Changes a watch in place (the Edit modal); false when it is gone. */
  async replace(userId: string, id: string, spec: WatchSpec): Promise<boolean> {
    const current = await this.get(userId, id);
    if (!current) return false;
    const res = await REPLACE.run(
      this.redis,
      1,
      this.keys.watches(userId),
      id,
      encode(spec, current.createdAt),
    );
    return res === 1;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    return (await this.removeWhere(userId, id)) > 0;
  }

  /** Removes every watch of the person; says how many there were. */
  async removeAll(userId: string): Promise<number> {
    return this.removeWhere(userId, "*");
  }

  /**
   * Every watch of the workspace, for matching a thread: everyone's, each person's oldest first.
   * The threads of a batch ask together and share one read (shared-reads.ts).
   */
  readonly all = sharedReads(async (_all: void): Promise<Watch[]> => {
    const users = (await this.redis.smembers(this.keys.watchers)).sort();
    const lists = await Promise.all(users.map((u) => this.list(u)));
    return lists.flat();
  });

  /**
   * Whether any watch of the workspace covers a group (names it, or names none): the intake
   * keeps a delivery of a group no channel follows when this says yes (docs/using.md, `watch`).
   */
  async covers(groupId: string): Promise<boolean> {
    if ((await this.redis.scard(this.keys.watchers)) === 0) return false;
    return (await this.all()).some((w) => !w.group || w.group.id === groupId);
  }

  private async removeWhere(userId: string, field: string): Promise<number> {
    return Number(
      await REMOVE.run(this.redis, 2, this.keys.watches(userId), this.keys.watchers, userId, field),
    );
  }
}
