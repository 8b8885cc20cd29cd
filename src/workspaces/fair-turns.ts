import type { Queue } from "bullmq";
import { fairTurnsKey } from "../store/keys.js";
import type { RedisClient as Redis } from "../store/redis.js";
import { luaScript } from "../store/lua-script.js";

/** BullMQ's highest priority number (2^21 - 1): a larger one is refused at `add`. */
export const PRIORITY_LIMIT = 2 ** 21 - 1;

// Virtual-clock fair queueing over BullMQ priorities (a lower number goes first; equal numbers
// go in the order they were added). "Now" is the priority of the job at the head of the shard's
// prioritized set; a workspace's next tag is max(now, its last tag) + 1, so a quiet workspace's
// job goes right behind the head while a busy one's go behind its own backlog, in order.
// Nothing waiting: a new round, every workspace starts level (this is also what keeps the
// tags far below the limit). Past the limit tags stay at it: order within a workspace holds
// (equal priorities are first in, first out), only the interleaving is lost until the next round.
// KEYS[1]: workspace -> last tag (a hash); KEYS[2]: the shard's prioritized set (same slot).
const TAKE = luaScript(`
local head = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local now = 0
if #head == 0 then
  redis.call('DEL', KEYS[1])
else
  now = math.floor(tonumber(head[2]) / 4294967296) - 1
end
local limit = tonumber(ARGV[3])
local last = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local first = math.min(math.max(now, last) + 1, limit)
redis.call('HSET', KEYS[1], ARGV[1], math.min(first + tonumber(ARGV[2]) - 1, limit))
redis.call('PEXPIRE', KEYS[1], 86400000)
return first
`);

/** One shard of a queue, as far as fair turns need it. */
export type FairShard = Pick<Queue, "name" | "toKey">;

/** Fair turns across workspaces in each shard of a queue, kept in Redis for every producer. */
export class FairTurns {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /**
   * Priorities for the next `count` jobs of a workspace in that shard: the first is returned,
   * the others follow it one by one (never past PRIORITY_LIMIT).
   */
  async take(shard: FairShard, workspaceId: string, count = 1): Promise<number> {
    const first = await TAKE.run(
      this.redis,
      2,
      fairTurnsKey(this.prefix, shard.name),
      shard.toKey("prioritized"),
      workspaceId,
      Math.max(1, count),
      PRIORITY_LIMIT,
    );
    return Number(first);
  }
}
