import type { StateKeys } from "./keys.js";
import { luaScript } from "./lua-script.js";
import type { RedisClient as Redis } from "./redis.js";

/** Longer than the wait for the cards' job and the retries of that job. */
const KEPT_MS = 3_600_000;
/**
 * How long adds are refused once the cards are taken: an add for a time comes before it (a
 * message of the window), so only one held up past it, by a slow process, comes later.
 */
const TAKEN_KEPT_MS = 600_000;

// KEYS: the set of the cards due at one time, its taken mark; ARGV: member, expiry ms. 0: taken already (the
// caller asks for the card's own edit); 1: added.
const ADD = luaScript(`
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

// KEYS: the set, its taken mark; ARGV: the mark's expiry ms. Marks the set taken and answers
// its members. The set is kept (with its expiry) until the job ends: a job run again after a
// crash takes the same cards.
const TAKE = luaScript(`
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return redis.call('SMEMBERS', KEYS[1])
`);

/** One card whose counts window ends: its thread and the window's number. */
export interface DueCard {
  threadId: string;
  window: number;
}

const memberOf = (c: DueCard) => `${c.window}|${c.threadId}`;

function cardOf(member: string): DueCard | undefined {
  const bar = member.indexOf("|");
  const window = Number(member.slice(0, bar));
  return bar > 0 && Number.isSafeInteger(window) ? { threadId: member.slice(bar + 1), window } : undefined;
}

/**
 * The cards of a channel whose counts windows end at the same time (within a second,
 * route-message-event.ts): one job looks at them all when they are due and asks for an edit of
 * those whose counts moved. A delayed job for each card's window cost its add, promotion, fetch
 * and completion, and most found nothing to change (bench:steady: 250 of 400 in a window).
 */
export class CountsDueStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "countsDue" | "countsDueTaken">,
  ) {}

  /** Adds a card to the cards due `at`; false when their job has taken them already. */
  async add(channelId: string, at: number, card: DueCard): Promise<boolean> {
    const added = await ADD.run(
      this.redis,
      2,
      this.keys.countsDue(channelId, at),
      this.keys.countsDueTaken(channelId, at),
      memberOf(card),
      String(KEPT_MS),
    );
    return added === 1;
  }

  /** The cards due `at`; from now on `add` answers false for that time. */
  async take(channelId: string, at: number): Promise<DueCard[]> {
    const members = (await TAKE.run(
      this.redis,
      2,
      this.keys.countsDue(channelId, at),
      this.keys.countsDueTaken(channelId, at),
      String(TAKEN_KEPT_MS),
    )) as string[];
    return members.map(cardOf).filter((c): c is DueCard => c !== undefined);
  }

  /** Forgets the cards due `at` once every edit they need is asked for. */
  async done(channelId: string, at: number): Promise<void> {
    await this.redis.del(this.keys.countsDue(channelId, at));
  }
}
