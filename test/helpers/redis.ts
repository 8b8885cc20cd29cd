import { randomUUID } from "node:crypto";
import { dropPrefix as dropKeys } from "../../dev/local-redis.js";
import { inject } from "vitest";

/** The Redis the run uses (REDIS_URL, or the throwaway one the global setup started). */
export function testRedisUrl(): string {
  return inject("redisUrl");
}

/** A key prefix of its own for one test, so parallel tests and earlier runs never collide. */
export function uniquePrefix(label = "t"): string {
  return `test-${label}-${randomUUID().slice(0, 8)}`;
}

/** Deletes every key under a prefix (call in afterEach/afterAll). */
export async function dropPrefix(prefix: string): Promise<void> {
  await dropKeys(testRedisUrl(), prefix);
}
