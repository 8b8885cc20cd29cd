import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { SEED } from "../../dev/emulator/index.js";
import { digestsOf, messageText, startHarness, type Harness } from "../helpers/app-harness.js";
import { clusterAvailable, startTestCluster, type LocalRedisCluster } from "../helpers/redis-cluster.js";

const GROUP = SEED.groups.support;

describe.runIf(clusterAvailable)("the relay on a Redis Cluster (3 masters + 3 replicas)", () => {
  let c: LocalRedisCluster;
  let h: Harness;
  beforeAll(async () => {
    c = await startTestCluster();
    h = await startHarness({ env: { REDIS_CLUSTER_NODES: c.seeds } });
    await h.subscribe(GROUP);
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
    await c?.close();
  });

  const readyz = async () => {
    const res = await request(`${h.baseUrl}/readyz`, { headersTimeout: 3_000, bodyTimeout: 3_000 });
    return { status: res.statusCode, body: await res.body.text() };
  };

  it("relays threads to digests and edits them in place, with queues sharded over the masters", async () => {
    expect(h.services.queues.layout).toEqual({ cluster: true, shards: 4 });
    const threads = [];
    for (let i = 0; i < 6; i++) {
      const { thread } = await h.emulator.createThread(GROUP, {
        title: `Cluster thread ${i}`,
        summary: `Summary ${i}`,
        sentiment: "neutral",
      });
      threads.push(thread);
    }
    for (const t of threads) await h.slack.waitFor(() => digestsOf(h, t.id)[0]);
    const [first] = threads;
    if (!first) throw new Error("no thread");
    await h.emulator.enrichThread(GROUP, first.id, { summary: "Edited on the cluster" }, "updated");
    const edited = await h.slack.waitFor(() => digestsOf(h, first.id).find((m) => m.updates >= 1));
    expect(messageText(edited)).toContain("Edited on the cluster");
    for (const t of threads) expect(digestsOf(h, t.id)).toHaveLength(1);
    // Every shard has its worker, and the deliveries went to more than one shard.
    const names = h.running.workers.map((w) => w.name);
    for (const n of ["{deliveries-0}", "{deliveries-3}", "{slack-out-0}", "{enrich-refresh-3}", "{weekly}"]) {
      expect(names).toContain(n);
    }
    const used = await Promise.all(
      h.services.queues.deliveries
        .shards()
        .map(async (q) => (await q.getJobCounts("completed")).completed ?? 0),
    );
    expect(used.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect((await readyz()).status).toBe(200);
  }, 60_000);
});
