import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Cluster } from "ioredis";
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
    const [victim] = await c.masters();
    if (victim === undefined) throw new Error("no master");
    // Know which master holds the key, and make sure its replica has it.
    const owner = Number(String(await r.call("CLUSTER", "KEYSLOT", "{harness}k")));
    expect(owner).toBeGreaterThanOrEqual(0);
    const masters = r.nodes("master");
    await Promise.all(masters.map((m) => m.call("WAIT", 1, 2_000)));
    const { promoted, ms } = await c.failover(victim);
    expect(await c.masters()).toContain(promoted);
    expect(await c.masters()).not.toContain(victim);
    expect(ms).toBeLessThan(20_000);
    expect(await r.get("{harness}k")).toBe("v");
  }, 60_000);
});
