import { threadEventSchema, type ThreadEvent } from "../insight/schemas.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import type { RedisClient as Redis } from "./redis.js";

/*
 * Threads held back from a channel only by its thresholds (`--min-messages`, `--min-participants`):
 * the thread's latest `chatthread-crud` event, kept so that new messages (chatmessage-crud) can
 * count it again and post it once it passes (route-message-event.ts). One key per thread,
 * `<enrichedAtMs>|<event JSON>`, the newest enrichment kept.
 */

/** A thread that stays small this long is no longer counted again. */
const HELD_TTL_MS = 7 * 24 * 3600 * 1000;

// Keeps the newer event: 1 when stored.
const HOLD = luaScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
  local at = string.match(cur, '^(%d+)|')
  if at and tonumber(at) > tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. ARGV[2], 'PX', ARGV[3])
return 1
`);

export class BelowThresholdStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "belowThreshold">,
  ) {}

  /** Keeps the thread's event (a newer one replaces it, an older one is ignored). */
  async hold(event: ThreadEvent): Promise<void> {
    const at = Date.parse(event.payload.timestamp);
    await HOLD.run(
      this.redis,
      1,
      this.keys.belowThreshold(event.payload.threadId),
      String(Number.isNaN(at) ? 0 : at),
      JSON.stringify(event),
      String(HELD_TTL_MS),
    );
  }

  /** The held event of a thread, or undefined when no channel holds it back. */
  async get(threadId: string): Promise<ThreadEvent | undefined> {
    const raw = await this.redis.get(this.keys.belowThreshold(threadId));
    const bar = raw?.indexOf("|") ?? -1;
    if (!raw || bar < 0) return undefined;
    try {
      const parsed = threadEventSchema.safeParse(JSON.parse(raw.slice(bar + 1)));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** No channel holds the thread back any longer (it was posted, or it left the filters). */
  async drop(threadId: string): Promise<void> {
    await this.redis.del(this.keys.belowThreshold(threadId));
  }
}
