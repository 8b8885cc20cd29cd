import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { SEED } from "../../dev/emulator/index.js";
import { digestsOf, messageText, startHarness, type Harness } from "../helpers/app-harness.js";
import {
  adminCluster,
  clusterAvailable,
  startTestCluster,
  type LocalRedisCluster,
} from "../helpers/redis-cluster.js";

/** The port of the master serving a key's slot now. */
async function masterOf(c: LocalRedisCluster, key: string): Promise<number> {
  const r = adminCluster(c);
  try {
    const slot = Number(await r.call("CLUSTER", "KEYSLOT", key));
    const ranges = (await r.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
    const hit = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!hit) throw new Error(`no master serves slot ${slot}`);
    return hit[2][1];
  } finally {
    r.disconnect();
  }
}

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

  const readyz = async (base = h.baseUrl) => {
    const res = await request(`${base}/readyz`, { headersTimeout: 3_000, bodyTimeout: 3_000 });
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

  it("an app pointed at one cluster node without REDIS_CLUSTER_NODES is not ready, and says why, within seconds", async () => {
    const [port] = await c.masters();
    const wrong = await startHarness({
      redisUrl: `redis://127.0.0.1:${port}`,
      registerWebhook: false,
      tuning: { errorWindowMs: 30_000, healthWatchMs: 500 },
    });
    try {
      const started = Date.now();
      let last = { status: 0, body: "" };
      while (Date.now() - started < 15_000) {
        const t = Date.now();
        last = await readyz(wrong.baseUrl);
        expect(Date.now() - t).toBeLessThan(1_500);
        if (last.status === 503) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      console.log(`wrong config: /readyz ${last.status} after ${Date.now() - started} ms: ${last.body}`);
      expect(last.status).toBe(503);
      expect(last.body).toMatch(/MOVED|CROSSSLOT|cluster|fails/i);
      // The ops side says it too (the log at least: through one node the ops key may be elsewhere).
      const told = () => wrong.logLines.find((l) => l.includes("Workers cannot fetch jobs"));
      const end = Date.now() + 10_000;
      while (!told() && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
      expect(told()).toMatch(
        /workers-cannot-fetch.*(MOVED|CROSSSLOT|fails)|(MOVED|CROSSSLOT|fails).*workers-cannot-fetch/,
      );
    } finally {
      await wrong.stop();
    }
  }, 60_000);

  it("survives a master failover while deliveries flow: every delivery 2xx, every digest once, /readyz 503 then 200", async () => {
    const victim = await masterOf(c, "{health}");
    const seen: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const t = Date.now();
        const r = await readyz().catch(() => ({ status: 0, body: "" }));
        expect(Date.now() - t).toBeLessThan(1_500);
        seen.push(r.status);
        await new Promise((res) => setTimeout(res, 200));
      }
    })();
    const before = h.emulator.webhooks.deliveries().length;
    const ids: string[] = [];
    let killed: Promise<{ promoted: number; ms: number }> | undefined;
    for (let i = 0; i < 30; i++) {
      if (i === 8) killed = c.failover(victim);
      const { thread } = await h.emulator.createThread(GROUP, {
        title: `Failover thread ${i}`,
        sentiment: "neutral",
      });
      ids.push(thread.id);
      await new Promise((r) => setTimeout(r, 150));
    }
    const { ms } = (await killed) ?? { ms: -1 };
    for (const id of ids) await h.slack.waitFor(() => digestsOf(h, id)[0], { timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 2_000)); // time for a duplicate to show, if any
    const deliveries = h.emulator.webhooks.deliveries().slice(before);
    const counts = ids.map((id) => digestsOf(h, id).length);
    // Wait for readiness to come back, then stop polling.
    const end = Date.now() + 30_000;
    while (seen.at(-1) !== 200 && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    polling = false;
    await poller;
    console.log(
      `failover: ${deliveries.length} deliveries, ${deliveries.filter((d) => d.ok).length} 2xx, ` +
        `${counts.filter((n) => n === 1).length} digests once, ${counts.filter((n) => n > 1).length} duplicated, ` +
        `failover ${ms} ms, readyz ${seen.filter((s) => s === 503).length}x503`,
    );
    expect(deliveries.every((d) => d.ok)).toBe(true);
    expect(counts.every((n) => n === 1)).toBe(true);
    expect(seen).toContain(503);
    expect(seen.at(-1)).toBe(200);
  }, 120_000);
});
