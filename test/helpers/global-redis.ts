import { redisAnswers, startThrowawayRedis, type ThrowawayRedis } from "../../dev/local-redis.js";
import type { TestProject } from "vitest/node";

export { freePort } from "../../dev/local-redis.js";

declare module "vitest" {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let own: ThrowawayRedis | undefined;

/** Uses the Redis at REDIS_URL; if none answers, starts a throwaway redis-server for the run. */
export default async function setup(project: TestProject) {
  const wanted = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (await redisAnswers(wanted)) {
    project.provide("redisUrl", wanted);
    return;
  }
  try {
    own = await startThrowawayRedis();
  } catch (err) {
    throw new Error(
      `No Redis answers at ${wanted} and a throwaway redis-server could not be started (is it on the PATH?): ${String(err)}`,
    );
  }
  process.env.REDIS_URL = own.url;
  project.provide("redisUrl", own.url);
  return async () => {
    await own?.close();
  };
}
