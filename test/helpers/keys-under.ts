import type { RedisClient } from "../../src/store/redis.js";
import { isCluster } from "../../src/store/redis.js";

/**
 * Every key matching a pattern, on one Redis or on every master of a cluster (KEYS and SCAN
 * through a cluster connection see one node only). For assertions; sorted.
 */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const nodes = isCluster(redis) ? redis.nodes("master") : [redis];
  const found = await Promise.all(nodes.map((n) => n.keys(pattern)));
  return found.flat().sort();
}
