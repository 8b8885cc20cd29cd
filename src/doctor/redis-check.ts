import { Redis } from "ioredis";
import { oneLine, type CheckResult } from "./result.js";

/** The URL as shown: the password, if any, masked. */
export function shownRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString().replace(/\/$/, "");
  } catch {
    return "(unparseable REDIS_URL)";
  }
}

const infoField = (info: string, field: string) => new RegExp(`^${field}:(.*)$`, "m").exec(info)?.[1]?.trim();

/** Redis answers PING; reports its version and warns about settings BullMQ cannot live with. */
export async function checkRedis(url: string, prefix: string, timeoutMs = 3_000): Promise<CheckResult[]> {
  const shown = shownRedisUrl(url);
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  let lastError = "";
  redis.on("error", (err: Error) => {
    lastError = err.message;
  });
  try {
    await redis.connect();
    await redis.ping();
    const info = await redis.info();
    const version = infoField(info, "redis_version") ?? "unknown version";
    const policy = infoField(info, "maxmemory_policy");
    const results: CheckResult[] = [
      {
        status: "ok",
        name: "Redis",
        text: `${shown} answers (Redis ${version}); this deployment's keys and queues are under "${prefix}:"`,
      },
    ];
    const major = Number(version.split(".")[0]);
    if (Number.isFinite(major) && major < 6) {
      results.push({
        status: "fail",
        name: "Redis",
        text: `Redis ${version} is too old for BullMQ: use Redis 6.2 or newer (7 recommended)`,
      });
    }
    if (policy && policy !== "noeviction") {
      results.push({
        status: "warn",
        name: "Redis",
        text: `maxmemory-policy is ${policy}: set it to noeviction, or Redis may drop queued jobs when memory runs out`,
      });
    }
    return results;
  } catch (err) {
    const why = oneLine(lastError || (err instanceof Error ? err.message : String(err)), 120);
    const auth = /NOAUTH|WRONGPASS|invalid password/i.test(why);
    return [
      {
        status: "fail",
        name: "Redis",
        text: auth
          ? `${shown} refused the credentials (${why}): put the right password in REDIS_URL (redis://:password@host:6379)`
          : `${shown} does not answer (${why}): start Redis (docker compose up -d redis) or set REDIS_URL`,
      },
    ];
  } finally {
    redis.disconnect();
  }
}
