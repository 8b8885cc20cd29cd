import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis, type Cluster } from "ioredis";
import {
  adminCluster,
  clusterAvailable,
  startTestCluster,
  type LocalRedisCluster,
} from "../helpers/redis-cluster.js";

describe.runIf(clusterAvailable)("the local Redis Cluster harness", () => {
  let c: LocalRedisCluster;
  let r: Cluster;
  beforeAll(async () => {
    c = await startTestCluster();
    r = adminCluster(c);
  }, 60_000);
  afterAll(async () => {
    r.disconnect();
    await c.close();
  });

  it("starts 3 masters and 3 replicas with every slot served", async () => {
    expect(c.nodes).toHaveLength(6);
    expect(await c.masters()).toHaveLength(3);
    const info = String(await r.call("CLUSTER", "INFO"));
    expect(info).toContain("cluster_state:ok");
    expect(info).toContain("cluster_slots_assigned:16384");
  });

  it("refuses a multi-key command across slots, as a real cluster does", async () => {
    await expect(r.eval("return redis.call('MGET', KEYS[1], KEYS[2])", 2, "a", "b")).rejects.toThrow();
    await expect(r.eval("return redis.call('MGET', KEYS[1], KEYS[2])", 2, "{t}a", "{t}b")).resolves.toEqual([
      null,
      null,
    ]);
  });

  it("fails a killed master over to its replica, keeping replicated data", async () => {
    await r.set("{harness}k", "v");
    // The master that holds the key, asked directly: it must have handed it to its replica.
    const slot = Number(await r.call("CLUSTER", "KEYSLOT", "{harness}k"));
    const ranges = (await r.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
    const victim = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
    if (victim === undefined) throw new Error("no master serves the key");
    const direct = new Redis(victim, "127.0.0.1");
    try {
      // A replica's first sync can still be under way right after the cluster formed.
      const end = Date.now() + 15_000;
      while (!/connected_slaves:1/.test(await direct.info("replication")) && Date.now() < end) {
        await new Promise((res) => setTimeout(res, 200));
      }
      expect(Number(await direct.call("WAIT", 1, 5_000))).toBe(1);
    } finally {
      direct.disconnect();
    }
    const { promoted, ms } = await c.failover(victim);
    expect(await c.masters()).toContain(promoted);
    expect(await c.masters()).not.toContain(victim);
    expect(ms).toBeLessThan(20_000);
    expect(await r.get("{harness}k")).toBe("v");
  }, 60_000);
});
