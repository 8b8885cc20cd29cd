import type { RedisClient as Redis } from "../store/redis.js";
import { luaScript } from "../store/lua-script.js";

// Claims one summary run. A finished run stays finished; a run in progress belongs to its job
// (the same job id may take it again: a BullMQ retry or a stalled job picked up elsewhere)
// until its lease ends, after which another job may finish what is left of it.
const CLAIM = luaScript(`
if redis.call('HGET', KEYS[1], 'done') then return 'done' end
local owner = redis.call('HGET', KEYS[1], 'owner')
local now = tonumber(ARGV[2])
local leaseUntil = tonumber(redis.call('HGET', KEYS[1], 'leaseUntil') or '0')
if owner and owner ~= ARGV[1] and leaseUntil > now then return 'busy' end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'leaseUntil', now + tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 'claimed'
`);

// Records a finished part, but only for the run's current owner.
const MARK = luaScript(`
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
`);

export type ClaimResult = "claimed" | "busy" | "done";

export interface RunGuardOptions {
  /** How long a job owns a run it claimed; longer than any run takes. Default 30 min. */
  leaseMs?: number;
  /** How long a run's record is kept: a repeat within it posts nothing. Default 8 days. */
  keepMs?: number;
  now?: () => number;
}

/**
 * The idempotency guard of one weekly summary, keyed by (channel, period) in Redis: whatever
 * number of jobs run for the same channel and week (a retried job, a job duplicated by two
 * scheduler processes, a stalled job run twice), the summary is posted once. Each posted part
 * (a group's message, its chart) is recorded, so a job that failed half-way and is retried
 * posts only what is missing.
 */
export class RunGuard {
  readonly #leaseMs: number;
  readonly #keepMs: number;
  readonly #now: () => number;

  constructor(
    private readonly redis: Redis,
    readonly key: string,
    readonly owner: string,
    o: RunGuardOptions = {},
  ) {
    this.#leaseMs = o.leaseMs ?? 30 * 60_000;
    this.#keepMs = o.keepMs ?? 8 * 86_400_000;
    this.#now = o.now ?? Date.now;
  }

  async claim(): Promise<ClaimResult> {
    const r = await CLAIM.run(this.redis, 1, this.key, this.owner, this.#now(), this.#leaseMs, this.#keepMs);
    return r === "claimed" || r === "busy" || r === "done" ? r : "busy";
  }

  /** Parts already posted in this run: part name -> what was recorded (a ts, a file id). */
  async parts(): Promise<Map<string, string>> {
    const h = await this.redis.hgetall(this.key);
    return new Map(
      Object.entries(h)
        .filter(([k]) => k.startsWith("part:"))
        .map(([k, v]) => [k.slice("part:".length), v]),
    );
  }

  /** False when another job took the run over meanwhile (this one's lease had ended). */
  async markPart(part: string, value: string): Promise<boolean> {
    return Number(await MARK.run(this.redis, 1, this.key, this.owner, `part:${part}`, value)) === 1;
  }

  async finish(): Promise<void> {
    await this.redis
      .multi()
      .hset(this.key, "done", new Date(this.#now()).toISOString())
      .pexpire(this.key, this.#keepMs)
      .exec();
  }
}
