import { SlackCallError } from "../errors.js";
import type { StateKeys } from "../../store/keys.js";
import type { RedisClient as Redis } from "../../store/redis.js";
import { luaScript } from "../../store/lua-script.js";

// Nothing calls the method before `until`; a later hold wins over an earlier one.
const HOLD = luaScript(`
local untilMs = tonumber(ARGV[1])
local held = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilMs > held then redis.call('SET', KEYS[1], untilMs, 'PX', math.max(1, untilMs - tonumber(ARGV[2]))) end
return 1
`);

/**
 * Methods whose limit is above all per channel (about one message a second): their 429 holds
 * the channel only (ChannelThrottle.pushBack), not every channel of the workspace.
 */
export const PER_CHANNEL_METHODS: ReadonlySet<string> = new Set(["chat.postMessage"]);

/**
 * Whether a 429 (or a hold after one) limits the channel it was for: the channel's later sends
 * then wait too. A method limited per workspace is held by `MethodHold` instead, and the
 * channel's posts go on meanwhile. Not a Slack call's error: the channel, to be safe.
 */
export function limitsTheChannel(err: unknown): boolean {
  return !(err instanceof SlackCallError) || PER_CHANNEL_METHODS.has(err.method);
}

/**
 * Slack's Web API limits are per workspace and method (the tiers of chat.update,
 * conversations.history, conversations.open...). After a 429 of such a method, every process
 * holds that method for the workspace until `Retry-After` has passed, so its other channels
 * wait it out instead of each meeting a 429 of its own. Kept under the workspace's prefix:
 * one workspace's hold never delays another.
 */
export class MethodHold {
  /**
   * Holds this process set or read, until they end: a hold is never shortened (HOLD), so one
   * known here needs no read, and a send can wait it out before it takes its card's lock.
   */
  private readonly known = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "slackHold">,
  ) {}

  /** Until when the method is held (ms since epoch), if it is. */
  async heldUntil(method: string, nowMs: number): Promise<number | undefined> {
    const known = this.knownUntil(method, nowMs);
    if (known !== undefined) return known;
    const v = await this.redis.get(this.keys.slackHold(method));
    const until = v === null ? 0 : Number(v);
    if (until <= nowMs) return undefined;
    this.known.set(method, until);
    return until;
  }

  /** Until when this process knows the method is held (a hold it set or read), without asking Redis. */
  knownUntil(method: string, nowMs: number): number | undefined {
    const until = this.known.get(method);
    if (until === undefined) return undefined;
    if (until > nowMs) return until;
    this.known.delete(method);
    return undefined;
  }

  async hold(method: string, untilMs: number, nowMs: number): Promise<void> {
    await HOLD.run(this.redis, 1, this.keys.slackHold(method), untilMs, nowMs);
    if (untilMs > (this.known.get(method) ?? 0)) this.known.set(method, untilMs);
  }
}
