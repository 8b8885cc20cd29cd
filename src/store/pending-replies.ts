import type { RedisClient as Redis } from "./redis.js";
import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";

/** One new message of a posted thread, waiting to go as a reply under its card. */
export interface PendingReply {
  messageId: string;
  author: string;
  text: string;
  /** ISO time of the message, or of its delivery when the message's own did not parse. */
  at: string;
}

/** A day is plenty: the batch goes out within its window, or the card is gone. */
const PENDING_TTL_S = 86_400;
/** A thread that floods faster than replies go out keeps only the newest. */
const MAX_PENDING = 200;

// Queues a message under a card unless it was queued there already (waiting, or sent since):
// KEYS: the pending list, the set of message ids queued; ARGV: message id, entry, max, ttl s.
const PUSH = luaScript(`
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then return 0 end
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]), -1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
`);

/**
 * New messages waiting to go under a card as one reply (`--replies on`), per (channel,
 * thread): a list, so a burst becomes one reply and a worker that dies after posting loses
 * nothing it had not sent.
 */
export class PendingReplies {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "pendingReplies" | "repliesQueued">,
  ) {}

  /**
   * Queues a message to go under the card; false when it was queued there already, waiting or
   * sent: a delivery processed twice (a batch cut short by a killed worker runs again, each of
   * its deliveries as a job of its own) puts no message under a card twice.
   */
  async push(channelId: string, threadId: string, reply: PendingReply): Promise<boolean> {
    const added = await PUSH.run(
      this.redis,
      2,
      this.keys.pendingReplies(channelId, threadId),
      this.keys.repliesQueued(channelId, threadId),
      reply.messageId,
      JSON.stringify(reply),
      MAX_PENDING,
      PENDING_TTL_S,
    );
    return Number(added) === 1;
  }

  /** The oldest `max` waiting, in order, and how many entries that was (drop that many once sent). */
  async peek(
    channelId: string,
    threadId: string,
    max: number,
  ): Promise<{ replies: PendingReply[]; taken: number }> {
    const raw = await this.redis.lrange(this.keys.pendingReplies(channelId, threadId), 0, max - 1);
    const out: PendingReply[] = [];
    for (const r of raw) {
      try {
        const p = JSON.parse(r) as Partial<PendingReply>;
        if (typeof p.messageId === "string" && typeof p.text === "string") {
          out.push({ messageId: p.messageId, author: p.author ?? "", text: p.text, at: p.at ?? "" });
        }
      } catch {
        // An unreadable entry is dropped with the batch it came in.
      }
    }
    return { replies: out, taken: raw.length };
  }

  /** Drops the oldest `n` (the ones just sent). */
  async drop(channelId: string, threadId: string, n: number): Promise<void> {
    if (n > 0) await this.redis.ltrim(this.keys.pendingReplies(channelId, threadId), n, -1);
  }
}
