// Why a worker stopped for good after a master failover (issue 33), pinned on a real cluster:
// BullMQ's watchdog reconnects a worker's blocking connection with `connect()`, which ioredis
// never settles when its ready check meets `cluster_state:fail`. The workers' connection makes
// its blocking copies without that check (store/redis.ts, BLOCKING_FETCH).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

  it("fails a fetch on the lost master at once, and reconnects while the cluster is down, where a plain copy's connect() never settles", async () => {
    const workers = createRedis({ url: URL, clusterNodes: seedsOf(c) }, "blocking", silentLogger);
    // The copies BullMQ makes for a worker's blocking fetch (bullmq ioredis-client.js `duplicate`):
    // ours, and one of a cluster with the same options but no say in how it is copied.
    const ours = (workers as Cluster).duplicate(undefined, { redisOptions: { connectionName: "ours" } });
    const plain = new Cluster(seedsOf(c), clusterOptions(URL, "blocking")).duplicate(undefined, {
      redisOptions: { connectionName: "plain" },
    });
    const admin = adminCluster(c);
    for (const r of [ours, plain]) r.on("error", () => undefined);
    try {
      await Promise.all([ready(ours), ready(plain)]);
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
      // The replica frozen too: the cluster stays down (cluster_state:fail) as long as the test needs.
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

      c.thaw(replica);
      await c.waitOk(30_000);
      await until("the plain copy is ready again", 15_000, () => plain.status === "ready");
      // ioredis #709: the ready check failed, the cluster reconnected on its own and is ready,
      // and the promise BullMQ awaits is lost. If this starts to settle, ioredis fixed it.
      expect(await settledWithin(plainBack, 2_000)).toBe("pending");

      // And ours fetches from the promoted replica, asking again as BullMQ's loop does (its first
      // ask may still go to the dead master it read while the cluster was down; the answer, or
      // a live master's MOVED, sets it right). A fresh admin: the first one saw the kill.
      const after = adminCluster(c);
      await after.zadd(marker, 0, "0").finally(() => after.disconnect());
      let fetched: unknown;
      await until("the marker is fetched", 5_000, async () => {
        fetched = await ours.bzpopmin(marker, 1);
        return fetched !== null;
      });
      expect(fetched).toEqual([marker, "0", "0"]);
    } finally {
      admin.disconnect();
      for (const r of [ours, plain, workers]) r.disconnect();
    }
  }, 90_000);
});
