import type { RedisClient as Redis } from "./redis.js";
import type { StateKeys } from "./keys.js";

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

/**
 * New messages waiting to go under a card as one reply (`--replies on`), per (channel,
 * thread): a list, so a burst becomes one reply and a worker that dies after posting loses
 * nothing it had not sent.
 */
export class PendingReplies {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "pendingReplies">,
  ) {}

  async push(channelId: string, threadId: string, reply: PendingReply): Promise<void> {
    const key = this.keys.pendingReplies(channelId, threadId);
    await this.redis
      .multi()
      .rpush(key, JSON.stringify(reply))
      .ltrim(key, -MAX_PENDING, -1)
      .expire(key, PENDING_TTL_S)
      .exec();
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
