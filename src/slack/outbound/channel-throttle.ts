import type { RedisClient as Redis } from "../../store/redis.js";
import type { StateKeys } from "../../store/keys.js";
import { luaScript } from "../../store/lua-script.js";

// Reserves the next free send slot of a channel: returns the slot's time. Slots are
// `gapMs` apart, so posts to one channel stay near Slack's one message a second.
const RESERVE = luaScript(`
local now = tonumber(ARGV[1])
local gap = tonumber(ARGV[2])
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
local slot = math.max(now, nextFree)
redis.call('SET', KEYS[1], slot + gap, 'PX', slot + gap - now + 60000)
return slot
`);

// After a 429, nothing goes to the channel before `until`.
const PUSH_BACK = luaScript(`
local untilMs = tonumber(ARGV[1])
local nextFree = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > nextFree then redis.call('SET', KEYS[1], untilMs, 'PX', untilMs - tonumber(ARGV[2]) + 60000) end
return 1
`);

/** Per-channel send spacing shared by every worker process, kept in Redis. */
export class ChannelThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    private readonly gapMs = 1_100,
  ) {}

  async reserve(channelId: string, nowMs: number): Promise<number> {
    return Number(await RESERVE.run(this.redis, 1, this.keys.channelSlot(channelId), nowMs, this.gapMs));
  }

  async pushBack(channelId: string, untilMs: number, nowMs: number): Promise<void> {
    await PUSH_BACK.run(this.redis, 1, this.keys.channelSlot(channelId), untilMs, nowMs);
  }
}
