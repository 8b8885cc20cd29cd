import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { spawnAppProcess, startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { follow, opsMessages } from "../reconcile/support.js";
import { faultRow, type FlowTarget } from "./flow.js";

const OTHER_CHANNEL = "C0CHAOSTWO";

// Redis with an append-only file fsync'ed every second (as docker-compose runs it) on a machine
// that goes down with the worker process: what the file took in its last second is gone when
// Redis comes back, and so is what the worker held. Deliveries acknowledged in that second are
// then known to no one but the service: the reconciler finds their enrichment in the listing
// and posts what no delivery brought. The web role (this process) lives on and spools meanwhile.
describe("chaos: Redis with AOF (everysec) loses its last second and restarts while digests flow", () => {
  let redis: OwnRedis;
  let h: Harness;
  const children: ChildProcess[] = [];
  const targets: FlowTarget[] = [
    { groupId: SEED.groups.support, channel: TEST_CHANNEL },
    { groupId: SEED.groups.contributors, channel: OTHER_CHANNEL },
  ];
  /** The children's log lines (the reconciler's work is logged at info). */
  const childLines: string[] = [];
  const startChild = async (role: "worker" | "scheduler") => {
    const child = await spawnAppProcess(h, role, { RECONCILE_INTERVAL: "3", LOG_LEVEL: "info" });
    child.stdout?.on("data", (d: Buffer) => childLines.push(...d.toString().split("\n")));
    children.push(child);
    return child;
  };
  beforeAll(async () => {
    redis = await startOwnRedis();
    h = await startHarness({
      redisUrl: redis.url,
      env: { ROLE: "web" },
      emulator: { webhookTimeoutMs: 10_000 },
      tuning: { healthWatchMs: 500 },
    });
    for (const t of targets) await follow(h, t.groupId, t.channel);
    await startChild("scheduler");
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await h?.stop();
    await redis?.close();
  });

  it("answers every delivery 2xx, and every digest is posted once, the lost second's by the reconciler", async () => {
    const worker = await startChild("worker");
    let lostBytes = 0;
    const r = await faultRow(
      h,
      targets,
      "Redis (AOF everysec) loses its last second and restarts",
      async () => {
        // What the last second's deliveries would post waits on Slack and dies with the worker:
        // those digests are surely missing after the crash, and no delivery will bring them.
        h.slack.fail.hang("chat.postMessage", { count: 1_000 });
        ({ lostBytes } = await redis.powerCut(1_000));
        worker.kill("SIGKILL");
        h.slack.fail.clear();
        h.slack.fail.dropHung();
        await new Promise((res) => setTimeout(res, 3_000));
        await redis.start();
        await startChild("worker");
      },
    );
    const routed = () =>
      childLines.filter((l) => l.includes("reconciler: sending a digest no delivery brought")).length;
    // A child writes a logged line out within a second (log.ts); the digest it routed may be
    // posted sooner than that.
    await vi.waitFor(() => expect(routed()).toBeGreaterThan(0), { timeout: 3_000, interval: 100 });
    const sent = routed();
    console.log(
      `aof row: the last second lost at Redis (${lostBytes} bytes of the AOF); the reconciler routed ${sent} threads that no delivery explained`,
    );
    expect(lostBytes).toBeGreaterThan(0);
    expect(sent).toBeGreaterThan(0);
    // The web role, without workers, says only that Redis did not answer, and alerts nothing.
    expect(r.figures.readinessBackMs).toBeDefined();
    expect(r.figures.ops).toEqual([]);
    expect(r.errors).toEqual([]);
    expect(r.verdict.refusedDeliveries).toEqual([]);
    expect(r.figures.ok).toBe(r.figures.deliveries);
    expect(r.figures.slowestAckMs).toBeLessThan(10_000);
    expect(r.verdict.lost).toEqual([]);
    expect(r.verdict.duplicated).toEqual([]);
  }, 120_000);
});

// The same loss with the app's processes living on: cards posted in the lost second lose their
// record (ts, posting mark) and their jobs run again; each looks in Slack for its earlier post
// (store/redis-restarts.ts) and edits it instead of posting a second card.
describe("chaos: Redis alone (AOF everysec) loses its last second and restarts while digests flow", () => {
  let redis: OwnRedis;
  let h: Harness;
  const targets: FlowTarget[] = [
    { groupId: SEED.groups.support, channel: TEST_CHANNEL },
    { groupId: SEED.groups.contributors, channel: OTHER_CHANNEL },
  ];
  beforeAll(async () => {
    redis = await startOwnRedis();
    h = await startHarness({
      redisUrl: redis.url,
      env: { RECONCILE_INTERVAL: "3" },
      emulator: { webhookTimeoutMs: 10_000 },
      tuning: { healthWatchMs: 500 },
    });
    for (const t of targets) await follow(h, t.groupId, t.channel);
  });
  afterAll(async () => {
    await h?.stop();
    await redis?.close();
  });

  it("posts no card twice: a card whose record was lost is found in Slack and edited", async () => {
    let lostBytes = 0;
    const searches = () => h.slack.calls.filter((c) => c.method === "conversations.history").length;
    const before = searches();
    const r = await faultRow(h, targets, "Redis alone (AOF everysec) loses its last second", async () => {
      ({ lostBytes } = await redis.powerCut(1_000));
      await new Promise((res) => setTimeout(res, 3_000));
      await redis.start();
    });
    console.log(
      `aof row (processes live on): ${lostBytes} bytes of the AOF lost; Slack searched ${searches() - before} times for a card whose record was lost`,
    );
    expect(lostBytes).toBeGreaterThan(0);
    // Its workers could not fetch meanwhile: said once (the watch looks every 0.5 s here, and
    // what the restart leaves behind can fail a look after a fine one), and undone once they
    // have fetched for the hold (10 s here, FAST_TUNING).
    await h.slack.waitFor(() => opsMessages(h).find((m) => m.text === "Workers fetch jobs again."), {
      timeoutMs: 40_000,
    });
    expect(opsMessages(h).filter((m) => m.text.startsWith("Workers cannot fetch jobs"))).toHaveLength(1);
    expect(r.errors).toEqual([]);
    expect(r.verdict.refusedDeliveries).toEqual([]);
    expect(r.figures.ok).toBe(r.figures.deliveries);
    expect(r.figures.slowestAckMs).toBeLessThan(10_000);
    expect(r.verdict.lost).toEqual([]);
    expect(r.verdict.duplicated).toEqual([]);
  }, 120_000);
});
