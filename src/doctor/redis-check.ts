import { Cluster, Redis } from "ioredis";
import { clusterOptions } from "../store/redis.js";
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

/** What BullMQ cannot live with in one node's INFO (the same on one Redis and on each master). */
function settingsOf(info: string, where: string): CheckResult[] {
  const version = infoField(info, "redis_version") ?? "unknown version";
  const policy = infoField(info, "maxmemory_policy");
  const results: CheckResult[] = [];
  const major = Number(version.split(".")[0]);
  if (Number.isFinite(major) && major < 6) {
    results.push({
      status: "fail",
      name: "Redis",
      text: `${where}Redis ${version} is too old for BullMQ: use Redis 6.2 or newer (7 recommended)`,
    });
  }
  if (policy && policy !== "noeviction") {
    results.push({
      status: "warn",
      name: "Redis",
      text: `${where}maxmemory-policy is ${policy}: set it to noeviction, or Redis may drop queued jobs when memory runs out`,
    });
  }
  return results;
}

/** Redis answers PING; reports its version and warns about settings BullMQ cannot live with. */
export async function checkRedis(
  url: string,
  prefix: string,
  timeoutMs = 3_000,
  clusterNodes?: readonly { host: string; port: number }[],
): Promise<CheckResult[]> {
  if (clusterNodes && clusterNodes.length > 0) return checkCluster(url, clusterNodes, prefix, timeoutMs);
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
    // The misconfiguration that looks healthy: one node of a cluster given as REDIS_URL.
    if (infoField(info, "cluster_enabled") === "1") {
      return [
        {
          status: "fail",
          name: "Redis",
          text: `${shown} is a node of a Redis Cluster: set REDIS_CLUSTER_NODES to its nodes (host:port,host:port,...); through one node, workers fail with CROSSSLOT and nothing is relayed`,
        },
      ];
    }
    const results: CheckResult[] = [
      {
        status: "ok",
        name: "Redis",
        text: `${shown} answers (Redis ${version}); this deployment's keys and queues are under "${prefix}:"`,
      },
      ...settingsOf(info, ""),
    ];
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

/** Cluster mode: every slot served, how many masters, each master's version and settings. */
async function checkCluster(
  url: string,
  seeds: readonly { host: string; port: number }[],
  prefix: string,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const shown = seeds.map((n) => `${n.host}:${n.port}`).join(",");
  const opts = clusterOptions(url, "command", {
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  const cluster = new Cluster([...seeds], {
    ...opts,
    lazyConnect: true,
    enableOfflineQueue: false,
    clusterRetryStrategy: () => null,
    slotsRefreshTimeout: timeoutMs,
  });
  let lastError = "";
  cluster.on("error", (err: Error) => {
    lastError = err.message;
  });
  try {
    await cluster.connect();
    const clusterInfo = String(await cluster.call("CLUSTER", "INFO"));
    const state = infoField(clusterInfo, "cluster_state") ?? "unknown";
    const assigned = Number(infoField(clusterInfo, "cluster_slots_assigned") ?? 0);
    const masters = cluster.nodes("master");
    // Replicas as the cluster sees them (ioredis connects to masters only).
    const nodeLines = String(await cluster.call("CLUSTER", "NODES"))
      .trim()
      .split("\n");
    const replicas = nodeLines.filter((l) => {
      const flags = (l.split(" ")[2] ?? "").split(",");
      return flags.includes("slave") && !flags.includes("fail");
    }).length;
    const infos = await Promise.all(masters.map((m) => m.info()));
    const versions = [...new Set(infos.map((i) => infoField(i, "redis_version") ?? "unknown version"))];
    if (state !== "ok" || assigned < 16_384) {
      return [
        {
          status: "fail",
          name: "Redis",
          text: `the Redis Cluster at ${shown} is not ok (cluster_state:${state}, ${assigned} of 16384 slots served): fix the cluster (redis-cli --cluster check) before starting the app`,
        },
      ];
    }
    const results: CheckResult[] = [
      {
        status: "ok",
        name: "Redis",
        text: `Redis Cluster at ${shown} answers: ${masters.length} master${masters.length === 1 ? "" : "s"}, ${replicas} replica${replicas === 1 ? "" : "s"}, every slot served (Redis ${versions.join(", ")}); this deployment's keys and queues are under "${prefix}:"`,
      },
      ...infos.flatMap((info, i) =>
        settingsOf(info, `master ${masters[i]?.options.host ?? "?"}:${masters[i]?.options.port ?? "?"}: `),
      ),
    ];
    if (replicas === 0) {
      results.push({
        status: "warn",
        name: "Redis",
        text: "the cluster has no replicas: a master that dies takes its share of the queues with it (give each master a replica)",
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
          ? `the Redis Cluster at ${shown} refused the credentials (${why}): put the right password in REDIS_URL (redis://:password@host:6379)`
          : `the Redis Cluster at ${shown} does not answer (${why}): start it, or fix REDIS_CLUSTER_NODES`,
      },
    ];
  } finally {
    cluster.disconnect();
  }
}
