import type { RedisClient as Redis } from "../store/redis.js";
import type { AlertSettings } from "../domain/alerts.js";
import type { StateKeys } from "../store/keys.js";
import { noteHas } from "../store/workspaces-with.js";

/** One channel's alert settings for one group. */
export interface ChannelAlert {
  channelId: string;
  settings: AlertSettings;
}

function parse(raw: string): AlertSettings | undefined {
  try {
    const v = JSON.parse(raw) as Partial<AlertSettings>;
    if (typeof v.groupId !== "string" || typeof v.setAt !== "string") return undefined;
    return {
      groupId: v.groupId,
      groupName: typeof v.groupName === "string" ? v.groupName : v.groupId,
      unansweredAfterHours: typeof v.unansweredAfterHours === "number" ? v.unansweredAfterHours : undefined,
      negativeSpike: v.negativeSpike === true,
      volumeSpike: v.volumeSpike === true,
      setBy: typeof v.setBy === "string" ? v.setBy : "",
      setAt: v.setAt,
    };
  } catch {
    return undefined;
  }
}

/**
 * The channels' alert settings: one hash per channel (groupId -> settings) and a set of the
 * channels that have any, which the evaluation job walks.
 */
export class AlertSettingsStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Pick<StateKeys, "alerts" | "alertChannels" | "workspaceMark">,
  ) {}

  /** Two commands, not a MULTI: the two keys may sit in different Redis Cluster slots. */
  async put(channelId: string, s: AlertSettings): Promise<void> {
    await this.redis.hset(this.keys.alerts(channelId), s.groupId, JSON.stringify(s));
    await this.redis.sadd(this.keys.alertChannels, channelId);
    await noteHas(this.redis, this.keys.workspaceMark, "alerts");
  }

  async get(channelId: string, groupId: string): Promise<AlertSettings | undefined> {
    const raw = await this.redis.hget(this.keys.alerts(channelId), groupId);
    return raw ? parse(raw) : undefined;
  }

  async forChannel(channelId: string): Promise<AlertSettings[]> {
    const rows = await this.redis.hvals(this.keys.alerts(channelId));
    return rows.map(parse).filter((s): s is AlertSettings => s !== undefined);
  }

  /** True when there was something to remove. */
  async remove(channelId: string, groupId: string): Promise<boolean> {
    const removed = (await this.redis.hdel(this.keys.alerts(channelId), groupId)) > 0;
    if ((await this.redis.hlen(this.keys.alerts(channelId))) === 0) {
      await this.redis.srem(this.keys.alertChannels, channelId);
    }
    return removed;
  }

  async all(): Promise<ChannelAlert[]> {
    const out: ChannelAlert[] = [];
    for (const channelId of (await this.redis.smembers(this.keys.alertChannels)).sort()) {
      for (const settings of await this.forChannel(channelId)) out.push({ channelId, settings });
    }
    return out;
  }
}
