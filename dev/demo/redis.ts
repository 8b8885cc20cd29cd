import { redisAnswers, redisServerInstalled, startThrowawayRedis } from "../local-redis.js";

export { dropPrefix, redisAnswers } from "../local-redis.js";

export interface DemoRedis {
  url: string;
  /** Where it came from, for the report. */
  origin: "given" | "throwaway";
  stop(): Promise<void>;
}

/**
 * The Redis at `url` when it answers; otherwise a throwaway redis-server on a free port (no
 * persistence, removed on stop) when one is installed; otherwise a one-line explanation.
 */
export async function findRedis(url: string): Promise<DemoRedis | string> {
  if (await redisAnswers(url)) return { url, origin: "given", stop: async () => undefined };
  if (!redisServerInstalled()) {
    return `No Redis answers at ${url} and redis-server is not installed: start one (docker compose up -d redis, or apt-get install redis-server) or set REDIS_URL, then run npm run demo again.`;
  }
  try {
    const own = await startThrowawayRedis();
    return { url: own.url, origin: "throwaway", stop: () => own.close() };
  } catch {
    return `No Redis answers at ${url} and a throwaway redis-server did not start: start Redis yourself or set REDIS_URL.`;
  }
}
