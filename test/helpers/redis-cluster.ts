// A Redis Cluster of a test file's own (3 masters + 3 replicas), started from redis-server.
import { Cluster } from "ioredis";
import { startLocalRedisCluster, type LocalRedisCluster } from "../../dev/local-redis-cluster.js";
import { redisServerInstalled } from "../../dev/local-redis.js";

export type { LocalRedisCluster } from "../../dev/local-redis-cluster.js";

/** Whether cluster tests can run here (CI installs redis-server; see .ci/run). */
export const clusterAvailable = redisServerInstalled();

/** One cluster per test file: start it in beforeAll, close it in afterAll. */
export const startTestCluster = (
  o: Parameters<typeof startLocalRedisCluster>[0] = {},
): Promise<LocalRedisCluster> => startLocalRedisCluster(o);

/** `{host, port}` seeds, as config.redis.clusterNodes holds them. */
export const seedsOf = (c: LocalRedisCluster) => c.nodes.map((n) => ({ host: "127.0.0.1", port: n.port }));

/** A plain admin connection to the cluster (the test's own, not the app's). */
export function adminCluster(c: LocalRedisCluster): Cluster {
  const r = new Cluster(seedsOf(c), { retryDelayOnClusterDown: 200, maxRedirections: 50 });
  r.on("error", () => undefined);
  return r;
}
