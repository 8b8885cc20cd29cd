// Why a worker stopped for good after a master failover (issue 33), pinned on a real cluster:
// BullMQ's watchdog reconnects a worker's blocking connection with `connect()`, which ioredis
// never settles when its ready check meets `cluster_state:fail`. The worker's loop waits on it
// forever: it fetches nothing again, its delayed jobs are never promoted, and `close()` never
// returns. The workers' connection makes its blocking copies without that check (store/redis.ts,
// BLOCKING_FETCH). The master's replica is frozen meanwhile, so the cluster stays down as long
// as the test needs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Queue, Worker } from "bullmq";
import { Cluster } from "ioredis";
import { silentLogger } from "../../src/log.js";
import { clusterOptions, createRedis } from "../../src/store/redis.js";
import {
  adminCluster,
  clusterAvailable,
  seedsOf,
  startTestCluster,
  type LocalRedisCluster,
} from "../helpers/redis-cluster.js";

const URL = "redis://127.0.0.1:6379";
const PREFIX = "blocking-fetch";

/** How a promise ended within `ms`: "resolved", "rejected: ..." or "pending". */
async function settledWithin(p: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<string>((r) => (timer = setTimeout(() => r("pending"), ms)));
  const outcome = p.then(
    () => "resolved",
    (err: unknown) => `rejected: ${err instanceof Error ? err.message : String(err)}`,
  );
  try {
    return await Promise.race([outcome, pending]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(what: string, ms: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const end = Date.now() + ms;
  while (
    !(await Promise.resolve()
      .then(check)
      .catch(() => false))
  ) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ready = (c: Cluster) =>
  c.status === "ready" ? Promise.resolve() : new Promise<void>((r) => c.once("ready", () => r()));

describe.runIf(clusterAvailable)("a worker's blocking connection through a master failover", () => {
  let c: LocalRedisCluster;
  beforeAll(async () => {
    c = await startTestCluster({ nodeTimeoutMs: 2_000 });
  }, 60_000);
  afterAll(async () => {
    await c?.close();
  });

  it("fails a fetch on the lost master at once and reconnects while the cluster is down; a worker on a plain connection stops for good and cannot close", async () => {
    const workers = createRedis({ url: URL, clusterNodes: seedsOf(c) }, "blocking", silentLogger);
    const plainWorkers = new Cluster(seedsOf(c), clusterOptions(URL, "blocking"));
    // The copies BullMQ makes for a worker's blocking fetch (bullmq ioredis-client.js `duplicate`):
    // ours, and one of a cluster with the same options but no say in how it is copied.
    const ours = (workers as Cluster).duplicate(undefined, { redisOptions: { connectionName: "ours" } });
    const plain = plainWorkers.duplicate(undefined, { redisOptions: { connectionName: "plain" } });
    // And two BullMQ workers, on queues of the same master: one over each connection.
    const done: Record<string, string[]> = { ours: [], plain: [] };
    const worker = (name: "ours" | "plain", connection: Cluster) => {
      const w = new Worker(`{blocking-fetch}${name}`, async (job) => void done[name]?.push(job.name), {
        connection,
        prefix: PREFIX,
      });
      w.on("error", () => undefined);
      return w;
    };
    const ourWorker = worker("ours", workers as Cluster);
    const plainWorker = worker("plain", plainWorkers);
    const admin = adminCluster(c);
    for (const r of [ours, plain, plainWorkers, workers]) r.on("error", () => undefined);
    try {
      await Promise.all([
        ready(ours),
        ready(plain),
        ourWorker.waitUntilReady(),
        plainWorker.waitUntilReady(),
      ]);
      const marker = "{blocking-fetch}:marker";
      const slot = Number(await admin.call("CLUSTER", "KEYSLOT", marker));
      const ranges = (await admin.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
      const victim = ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
      if (victim === undefined) throw new Error("no master serves the marker's slot");
      const [replica] = await c.replicasOf(victim);
      if (replica === undefined) throw new Error("the master has no replica");

      // A fetch in flight on the master when it dies fails at once (BullMQ's loop asks again),
      // rather than being sent again and again for seconds after BullMQ gave up on it.
      let failedAt = 0;
      const fetching = ours.bzpopmin(marker, 10).finally(() => (failedAt = Date.now()));
      fetching.catch(() => undefined); // looked at below
      await new Promise((r) => setTimeout(r, 200));
      c.freeze(replica);
      const killedAt = Date.now();
      await c.kill(victim);
      expect(await settledWithin(fetching, 1_500)).toBe("rejected: Connection is closed.");
      console.log(`blocking fetch on the killed master failed ${failedAt - killedAt} ms after the kill`);
      expect(failedAt - killedAt).toBeLessThan(1_500);

      await until("a live node says cluster_state:fail", 10_000, async () =>
        String(await admin.call("CLUSTER", "INFO")).includes("cluster_state:fail"),
      );
      // What BullMQ's watchdog does to a blocking connection (resetBlockedConnection): drop it,
      // then connect again and wait for that.
      const reconnect = async (r: Cluster) => {
        const ended = new Promise((res) => r.once("end", res));
        r.disconnect();
        await ended;
        return r.connect();
      };
      const oursBack = reconnect(ours);
      const plainBack = reconnect(plain);
      expect(await settledWithin(oursBack, 5_000)).toBe("resolved");
      // The workers' own watchdogs fire within their block (5 s) and a second, while it is down.
      await new Promise((r) => setTimeout(r, 6_500 - (Date.now() - killedAt)));

      c.thaw(replica);
      await c.waitOk(30_000);
      await until("the plain copy is ready again", 15_000, () => plain.status === "ready");
      // ioredis #709: the ready check failed, the cluster reconnected on its own and is ready,
      // and the promise BullMQ awaits is lost. If this starts to settle, ioredis fixed it.
      expect(await settledWithin(plainBack, 2_000)).toBe("pending");

      // After the failover: our worker takes a job within seconds; the plain one never does.
      const after = adminCluster(c);
      try {
        for (const name of ["ours", "plain"] as const) {
          const q = new Queue(`{blocking-fetch}${name}`, { connection: after, prefix: PREFIX });
          await q.add(`after-${name}`, {}, { delay: 200 });
          await q.close();
        }
        // 20 s: its first ask may wait out a block on the dead master's address (BullMQ's 10 s
        // cap) before it asks the promoted one; seen to need more than 10 s with the whole suite
        // running on two cores.
        await until("our worker takes its job", 20_000, () => done.ours?.length === 1);
        await new Promise((r) => setTimeout(r, 3_000));
        expect(done).toEqual({ ours: ["after-ours"], plain: [] });
        // And ours fetches from the promoted replica, asking again as BullMQ's loop does (its
        // first ask may still go to the dead master it read while the cluster was down).
        await after.zadd(marker, 0, "0");
      } finally {
        after.disconnect();
      }
      let fetched: unknown;
      await until("the marker is fetched", 5_000, async () => {
        fetched = await ours.bzpopmin(marker, 1);
        return fetched !== null;
      });
      expect(fetched).toEqual([marker, "0", "0"]);

      // BullMQ's own close: ours returns; the plain one waits for its loop, which waits forever,
      // and forcing it then gives back the same close (BullMQ returns the one under way): what
      // create-worker.ts bounds, dropping the connection after.
      const started = Date.now();
      await ourWorker.close();
      console.log(`our worker closed in ${Date.now() - started} ms after the failover`);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(await settledWithin(plainWorker.close(), 3_000)).toBe("pending");
      expect(await settledWithin(plainWorker.close(true), 1_000)).toBe("pending");
    } finally {
      admin.disconnect();
      await settledWithin(ourWorker.close(true), 2_000);
      for (const r of [ours, plain, workers, plainWorkers]) r.disconnect();
    }
  }, 90_000);
});
