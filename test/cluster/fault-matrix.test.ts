// The Redis Cluster rows of the fault matrix (docs/faults.md), against real redis-server
// processes: each master killed in turn, a master frozen past the node timeout, a replica
// killed; digests flowing all the while. Each row prints its figures (fault matrix | ...).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { startHarness, type Harness } from "../helpers/app-harness.js";
import {
  adminCluster,
  clusterAvailable,
  startTestCluster,
  type LocalRedisCluster,
} from "../helpers/redis-cluster.js";
import { follow } from "../reconcile/support.js";
import { faultRow, type FlowTarget, type RowFigures } from "../chaos/flow.js";

const GROUPS = [SEED.groups.support, SEED.groups.contributors, SEED.groups.rides, SEED.groups.workshop];

/** The port of the master serving a slot now. */
async function masterOfSlot(c: LocalRedisCluster, slot: number): Promise<number> {
  const r = adminCluster(c);
  try {
    const ranges = (await r.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
    const hit = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!hit) throw new Error(`no master serves slot ${slot}`);
    return hit[2][1];
  } finally {
    r.disconnect();
  }
}

describe.runIf(clusterAvailable)(
  "fault matrix on a Redis Cluster (3 masters + 3 replicas, node timeout 2 s)",
  () => {
    let c: LocalRedisCluster;
    let h: Harness;
    let targets: FlowTarget[] = [];
    beforeAll(async () => {
      c = await startTestCluster({ nodeTimeoutMs: 2_000 });
      h = await startHarness({
        env: { REDIS_CLUSTER_NODES: c.seeds, RECONCILE_INTERVAL: "5" },
        // The service's own limit: an answer within 10 s.
        emulator: { webhookTimeoutMs: 10_000 },
        // A second between posts to a channel, as in production: Slack jobs wait in the delayed set.
        tuning: { channelGapMs: 1_000 },
      });
      // One channel on each slack-out shard, each following its own group.
      const byShard = new Map<number, string>();
      for (let i = 0; byShard.size < 4; i++) {
        const ch = `C0MATRIX${i}`;
        const shard = h.services.queues.slack.shardIndexOf({ kind: "notice", channelId: ch, text: "" });
        if (!byShard.has(shard)) byShard.set(shard, ch);
      }
      targets = [...byShard.values()].map((channel, i) => ({ groupId: GROUPS[i] ?? "", channel }));
      for (const t of targets) await follow(h, t.groupId, t.channel);
    }, 60_000);
    afterAll(async () => {
      await h?.stop();
      await c?.close();
    });

    /** A row, and what every row must show: 0 lost, 0 duplicated, every delivery 2xx within 10 s. */
    async function row(name: string, fault: () => Promise<unknown>): Promise<RowFigures> {
      // /readyz asked every 100 ms: a failover's window of cluster_state:fail is under a second.
      const {
        figures: f,
        verdict: v,
        readiness,
        errors,
      } = await faultRow(h, targets, name, fault, {
        readyzEveryMs: 100,
      });
      expect(errors).toEqual([]);
      expect(v.refusedDeliveries).toEqual([]);
      expect(v.webhookDisabled).toBe(false);
      expect(f.ok).toBe(f.deliveries);
      expect(f.slowestAckMs).toBeLessThan(10_000);
      expect(v.lost).toEqual([]);
      expect(v.duplicated).toEqual([]);
      expect(readiness.seen.at(-1)?.status).toBe(200);
      expect(readiness.slowestMs).toBeLessThan(1_500);
      return f;
    }

    /**
     * Readiness said so while the cluster refused commands, and was back within `backMs`. The
     * window between the master being flagged FAIL and its replica's promotion is under a
     * second; on a loaded machine it can fall between two answers of /readyz (each up to
     * 900 ms), and then readiness was 200 throughout, which is the truth at each look.
     */
    function expectReadinessThroughFailover(f: RowFigures, backMs: number): void {
      if (f.readinessBackMs === undefined) {
        console.log(`${f.row}: the fail window fell between two looks of /readyz`);
        return;
      }
      expect(f.readinessBackMs).toBeLessThan(backMs);
      expect(f.notReadyBecause.join("\n")).toMatch(/Redis Cluster state is fail|Redis did not answer/);
    }

    // The three slot ranges, one per master: killing each range's master in turn puts every
    // queue shard (and every other key) through a failover once.
    for (const [i, slot] of [0, 5_461, 10_923].entries()) {
      it(`master ${i + 1} of 3 killed (SIGKILL) during a flow: its replica takes over, nothing lost or repeated`, async () => {
        const victim = await masterOfSlot(c, slot);
        const f = await row(`master ${i + 1} of 3 killed`, () => c.failover(victim));
        // Readiness says so while the cluster is down (Redis Cluster state is fail, or Redis
        // not answering in time while it is), and is back after it; a failover is over before
        // the health watch's second look: no alert.
        expectReadinessThroughFailover(f, 10_000);
        expect(f.ops).toEqual([]);
        await c.restart(victim); // back as a replica: the next row has 3 + 3 again
      }, 150_000);
    }

    it("a master frozen (SIGSTOP) past the node timeout, then thawed after the failover: it returns as a replica", async () => {
      const victim = await masterOfSlot(c, 5_461);
      let promoted = 0;
      const f = await row("master frozen past the node timeout", async () => {
        ({ promoted } = await c.stall(victim));
      });
      // What the thaw unblocks (UNBLOCKED ... master -> replica) is over at once, not 15 s later.
      expectReadinessThroughFailover(f, 12_000);
      expect(f.ops).toEqual([]);
      expect(await c.masters()).toContain(promoted);
      expect(await c.replicasOf(promoted)).toContain(victim);
    }, 150_000);

    it("a replica killed during a flow: nothing lost or repeated, readiness unaffected", async () => {
      const masters = await c.masters();
      const [replica] = await c.replicasOf(masters[0] ?? 0);
      if (replica === undefined) throw new Error("no replica");
      const f = await row("replica killed", () => c.kill(replica));
      expect(f.readinessBackMs).toBeUndefined();
      expect(f.ops).toEqual([]);
      await c.restart(replica);
    }, 120_000);
  },
);
