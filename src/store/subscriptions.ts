import type { RedisClient as Redis } from "./redis.js";
import type { Subscription } from "../domain/subscription.js";
import type { StateKeys } from "./keys.js";
import { byCodeUnit } from "../domain/without-icu.js";
import { sharedReads } from "./shared-reads.js";
import { noteHas } from "./workspaces-with.js";

export type { Subscription };

/**
 * Subscriptions, indexed both ways (group -> channels for routing, channel -> groups for
 * commands) and written in one MULTI so the two indexes never disagree.
 */
export class SubscriptionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
  ) {}

  async put(sub: Subscription): Promise<{ created: boolean }> {
    const json = JSON.stringify(sub);
    const res = await this.redis
      .multi()
      .hset(this.keys.subsByGroup(sub.groupId), sub.channelId, json)
      .hset(this.keys.subsByChannel(sub.channelId), sub.groupId, json)
      .sadd(this.keys.subscribedGroups, sub.groupId)
      .sadd(this.keys.subscribedChannels, sub.channelId)
      .exec();
    await noteHas(this.redis, this.keys.workspaceMark, "subscriptions");
    return { created: res?.[0]?.[1] === 1 };
  }

  async remove(channelId: string, groupId: string): Promise<boolean> {
    const res = await this.redis
      .multi()
      .hdel(this.keys.subsByGroup(groupId), channelId)
      .hdel(this.keys.subsByChannel(channelId), groupId)
      .exec();
    const removed = res?.[0]?.[1] === 1;
    // Keep the index sets tidy; a race with a concurrent subscribe re-adds on its next put.
    if ((await this.redis.hlen(this.keys.subsByGroup(groupId))) === 0) {
      await this.redis.srem(this.keys.subscribedGroups, groupId);
    }
    if ((await this.redis.hlen(this.keys.subsByChannel(channelId))) === 0) {
      await this.redis.srem(this.keys.subscribedChannels, channelId);
    }
    return removed;
  }

  async get(channelId: string, groupId: string): Promise<Subscription | undefined> {
    const raw = await this.redis.hget(this.keys.subsByChannel(channelId), groupId);
    return raw ? parse(raw) : undefined;
  }

  /** Whether any channel follows the group, paused or not: one EXISTS, nothing parsed. */
  async followed(groupId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.subsByGroup(groupId))) > 0;
  }

  /** Every subscription to a group; reads asked for together share one (shared-reads.ts). */
  readonly forGroup = sharedReads(async (groupId: string): Promise<Subscription[]> =>
    parseAll(await this.redis.hvals(this.keys.subsByGroup(groupId))),
  );

  async forChannel(channelId: string): Promise<Subscription[]> {
    return parseAll(await this.redis.hvals(this.keys.subsByChannel(channelId)));
  }

  async groups(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.subscribedGroups)).sort();
  }

  async channels(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.subscribedChannels)).sort();
  }

  async all(): Promise<Subscription[]> {
    const out: Subscription[] = [];
    for (const channelId of await this.channels()) out.push(...(await this.forChannel(channelId)));
    return out;
  }

  /** Pauses every subscription of a channel (Slack refused the channel itself). */
  async pauseChannel(channelId: string, code: string, at: Date): Promise<Subscription[]> {
    const subs = await this.forChannel(channelId);
    const changed = subs.filter((s) => !s.paused);
    for (const s of changed) await this.put({ ...s, paused: { code, at: at.toISOString() } });
    return changed;
  }

  async resume(channelId: string, groupId: string): Promise<boolean> {
    const s = await this.get(channelId, groupId);
    if (!s?.paused) return false;
    await this.put({ ...s, paused: undefined });
    return true;
  }
}

function parse(raw: string): Subscription | undefined {
  try {
    return JSON.parse(raw) as Subscription;
  } catch {
    return undefined;
  }
}
const parseAll = (raws: string[]) =>
  raws
    .map(parse)
    .filter((s): s is Subscription => s !== undefined)
    .sort((a, b) => byCodeUnit(a.createdAt, b.createdAt));
