import { isValidTimezone } from "../config.js";
import { debugOnFailure, type Logger } from "../log.js";
import type { RedisClient } from "../store/redis.js";
import type { SlackApi } from "./client.js";

/** A person's own Slack time zone, for what they read ("this week", "since Monday", quiet hours). */
export interface UserTimeZones {
  /** An IANA zone name; the app's default when Slack does not say (or cannot be asked). */
  of(userId: string): Promise<string>;
}

export interface UserTimeZoneDeps {
  slack: Pick<SlackApi, "call">;
  redis: Pick<RedisClient, "get" | "set">;
  /** stateKeys(...).userTimeZone: per workspace, like every key. */
  key: (userId: string) => string;
  /** DEFAULT_TIMEZONE. */
  fallback: string;
  /** How long a zone read from Slack is trusted; default 15 minutes (people travel). */
  ttlSeconds?: number;
  logger: Logger;
}

interface UsersInfo {
  user?: { tz?: unknown };
}

const DEFAULT_TTL_SECONDS = 15 * 60;

/**
 * `users.info`'s `tz` (scope users:read), cached in Redis for a short while so that a
 * conversation asks Slack once, not at every question. A failed call (missing scope, unknown
 * user, Slack down) or an unknown zone falls back to the app's default and is not cached, so
 * the next question asks again.
 */
export function userTimeZones(deps: UserTimeZoneDeps): UserTimeZones {
  const ttl = deps.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  const cacheFailed = debugOnFailure(deps.logger, "user time zone: the cache is unavailable");
  return {
    async of(userId) {
      const key = deps.key(userId);
      const cached = await deps.redis.get(key).catch((err: unknown) => {
        cacheFailed(err);
        return null;
      });
      if (cached && isValidTimezone(cached)) return cached;
      let tz: unknown;
      try {
        tz = (await deps.slack.call<UsersInfo>("users.info", { user: userId })).user?.tz;
      } catch (err) {
        deps.logger.debug({ err, userId }, "user time zone: users.info failed, using the default");
        return deps.fallback;
      }
      if (typeof tz !== "string" || !isValidTimezone(tz)) return deps.fallback;
      await deps.redis.set(key, tz, "EX", ttl).catch(cacheFailed);
      return tz;
    },
  };
}
