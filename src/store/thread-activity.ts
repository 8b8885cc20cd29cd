import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import type { RedisClient as Redis } from "./redis.js";

/** Longer than any counts window (3 minutes by default) and the retries of its edit. */
const KEPT_MS = 3_600_000;

// Keeps the later time (KEYS[1]; ARGV: time, expiry ms): processes may route a thread's
// messages out of order.
const NOTE_LATER = luaScript(`
local cur = tonumber(redis.call('GET', KEYS[1]))
if cur and cur > tonumber(ARGV[1]) then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
`);

/**
 * When a message of a thread was last routed (chatmessage-crud), in whichever process: a counts
 * edit at the end of the window can then use the thread's listing entry read after that, rather
 * than walk the listing down to where an older thread sits now (thread-lookup.ts `countsOf`).
 */
export class ThreadActivityStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "threadMessageAt">,
  ) {}

  async noteMessage(threadId: string, atMs: number): Promise<void> {
    await NOTE_LATER.run(this.redis, 1, this.keys.threadMessageAt(threadId), String(atMs), String(KEPT_MS));
  }

  async lastMessageAt(threadId: string): Promise<number | undefined> {
    const v = await this.redis.get(this.keys.threadMessageAt(threadId));
    const at = v === null ? NaN : Number(v);
    return Number.isFinite(at) ? at : undefined;
  }
}
