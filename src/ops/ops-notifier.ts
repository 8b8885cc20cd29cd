import type { RedisClient as Redis } from "../store/redis.js";
import type { Logger } from "../log.js";
import type { StateKeys } from "../store/keys.js";
import { noteHas } from "../store/workspaces-with.js";
import { jobId, type Producer, type SlackJob } from "../jobs/job-types.js";
import { EMOJI } from "../slack/render/wording.js";
import { INSIGHT_UNAUTHORIZED } from "./incidents.js";

/**
 * How often a process that saw no refusal itself still clears a "refused" mark on success:
 * another process may have set it, so the mark goes within this long of things working again,
 * at the cost of one write per this long instead of one per call.
 */
export const CLEAR_EVERY_MS = 30_000;

/**
 * Whether a success should clear a "refused" mark in Redis now: at the first success, after
 * this process saw a refusal, and otherwise once per CLEAR_EVERY_MS.
 */
export function clearGate(now: () => number): { refused(): void; due(): boolean } {
  // A new process knows nothing yet: the first success checks.
  let sawRefusal = true;
  let lastClearAt = -Infinity;
  return {
    refused() {
      sawRefusal = true;
    },
    due() {
      if (!sawRefusal && now() - lastClearAt < CLEAR_EVERY_MS) return false;
      sawRefusal = false;
      lastClearAt = now();
      return true;
    },
  };
}

/**
 * Operational alerts: one per incident (deduplicated in Redis across processes), logged,
 * and posted to OPS_CHANNEL_ID when it is set. `resolve` closes the incident so the next
 * occurrence alerts again. When Redis will not take an alert (unreachable, or refusing writes
 * at maxmemory), it is posted straight to the channel with `direct`, once per incident in this
 * process: the ops channel hears of a Redis problem that the queue cannot carry.
 */
export class OpsNotifier {
  private readonly keyCleared = clearGate(() => this.now().getTime());
  /** Incidents this process posted with `direct` (Redis did not take them). */
  private readonly saidDirectly = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: StateKeys,
    /** A getter, not the queue: see `healingQueue`. */
    private readonly slackQueue: () => Producer<SlackJob>,
    private readonly opsChannelId: string | undefined,
    private readonly logger: Logger,
    private readonly now: () => Date = () => new Date(),
    /** Posts to a channel without Redis (chat.postMessage); unset: such an alert is only logged. */
    private readonly direct?: (channel: string, text: string) => Promise<unknown>,
  ) {}

  async alert(incident: string, text: string, opts: { windowSeconds?: number } = {}): Promise<boolean> {
    try {
      return await this.alertThroughRedis(incident, text, opts);
    } catch (err) {
      const channel = this.opsChannelId;
      if (!channel || !this.direct) throw err;
      this.logger.error({ incident, err }, text);
      if (this.saidDirectly.has(incident)) return false;
      this.saidDirectly.add(incident);
      await this.direct(channel, text);
      return true;
    }
  }

  private async alertThroughRedis(
    incident: string,
    text: string,
    opts: { windowSeconds?: number },
  ): Promise<boolean> {
    const at = this.now().toISOString();
    const fresh = await this.redis.hsetnx(this.keys.opsAlerts, incident, JSON.stringify({ at, text }));
    if (fresh === 1) {
      // Open incidents bring the ticks that close them.
      await noteHas(this.redis, this.keys.workspaceMark, "incidents");
    } else {
      // Same incident already open: say nothing new unless the window has passed.
      const raw = await this.redis.hget(this.keys.opsAlerts, incident);
      const openedAt = raw ? Date.parse((JSON.parse(raw) as { at: string }).at) : 0;
      if (this.now().getTime() - openedAt < (opts.windowSeconds ?? 6 * 3600) * 1000) return false;
      await this.redis.hset(this.keys.opsAlerts, incident, JSON.stringify({ at, text }));
    }
    this.logger.error({ incident }, text);
    if (this.opsChannelId) {
      await this.slackQueue().add(
        "notice",
        { kind: "notice", channelId: this.opsChannelId, text },
        { jobId: jobId("ops", incident, at) },
      );
    }
    return true;
  }

  async resolve(incident: string, text?: string): Promise<boolean> {
    // Posted directly: not in Redis, but the channel heard of it and hears that it is over.
    const saidDirectly = this.saidDirectly.delete(incident);
    let removed = false;
    try {
      removed = (await this.redis.hdel(this.keys.opsAlerts, incident)) === 1;
    } catch (err) {
      if (!saidDirectly) throw err;
    }
    const channel = this.opsChannelId;
    if ((removed || saidDirectly) && text) {
      this.logger.info({ incident }, text);
      if (channel) {
        const queued = this.slackQueue().add(
          "notice",
          { kind: "notice", channelId: channel, text },
          { jobId: jobId("ops-resolved", incident, this.now().toISOString()) },
        );
        await (saidDirectly && this.direct ? queued.catch(() => this.direct?.(channel, text)) : queued);
      }
    }
    return removed || saidDirectly;
  }

  /** The Insight Service answered 401: recorded for `status`, and one alert per incident. */
  async insightUnauthorized(): Promise<void> {
    this.keyCleared.refused();
    await this.redis.hset(this.keys.apiHealth, "lastUnauthorizedAt", this.now().toISOString());
    await this.alert(
      INSIGHT_UNAUTHORIZED,
      `${EMOJI.problem} The Insight Service rejected the API key (401). Check INSIGHT_API_KEY: commands fail and digests go out without sentiment until it is fixed.`,
    );
    // Again once the incident is open: a success between the two used the first up on nothing.
    this.keyCleared.refused();
  }

  /**
   * A call with the key succeeded: closes the 401 incident, if one is open. Every digest's
   * lookup says so, so the close is tried per `clearGate` (one HDEL per 30 s, not one per
   * digest); `force`: a check someone asked for (`status`) clears at once.
   */
  async insightAuthorized(o: { force?: boolean } = {}): Promise<void> {
    if (!this.keyCleared.due() && !o.force) return;
    try {
      await this.resolve(INSIGHT_UNAUTHORIZED, `${EMOJI.ok} The Insight Service accepts the API key again.`);
    } catch (err) {
      this.keyCleared.refused(); // not cleared after all: the next success tries again
      throw err;
    }
  }

  /** When the Insight Service last answered 401 to any call of this app. */
  async lastUnauthorizedAt(): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.apiHealth, "lastUnauthorizedAt")) ?? undefined;
  }

  async open(): Promise<Record<string, { at: string; text: string }>> {
    const h = await this.redis.hgetall(this.keys.opsAlerts);
    return Object.fromEntries(
      Object.entries(h).map(([k, v]) => [k, JSON.parse(v) as { at: string; text: string }]),
    );
  }
}
