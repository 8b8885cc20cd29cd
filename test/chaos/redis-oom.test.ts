import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import type { Harness } from "../helpers/app-harness.js";
import { opsMessages } from "../reconcile/support.js";
import { faultRow, spooledAcks, startChaosRig, type ChaosRig, type FlowTarget } from "./flow.js";

// Redis at maxmemory with noeviction (what BullMQ needs) refuses every write with "OOM command
// not allowed": the receiver spools and answers 2xx, the workers cannot fetch (readiness says
// so), the ops channel hears of it straight from Slack's API (Redis cannot queue the alert), and
// everything is posted once when memory is freed.
describe("chaos: Redis at maxmemory (OOM command not allowed) while digests flow", () => {
  let rig: ChaosRig;
  let admin: Redis;
  let h: Harness;
  let targets: FlowTarget[];
  beforeAll(async () => {
    rig = await startChaosRig();
    ({ admin, h, targets } = rig);
  });
  afterAll(async () => {
    await rig?.admin.config("SET", "maxmemory", "0").catch(() => undefined);
    await rig?.stop();
  });

  it("acknowledges every delivery (spooled), tells the ops channel, and posts everything once when memory is freed", async () => {
    let toldDuringOom: string[] = [];
    let spooledAtMost = 0;
    const r = await faultRow(h, targets, "Redis at maxmemory for 8 s", async () => {
      const used = Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1] ?? 0);
      // Below what it holds: every write is refused from now on.
      await admin.config("SET", "maxmemory", String(Math.max(1, used - 100_000)));
      const end = Date.now() + 8_000;
      while (Date.now() < end) {
        spooledAtMost = Math.max(spooledAtMost, (await h.running.receiver?.spool.sizeOnDisk()) ?? 0);
        await new Promise((res) => setTimeout(res, 250));
      }
      toldDuringOom = opsMessages(h).map((m) => m.text);
      await admin.config("SET", "maxmemory", "0");
    });
    console.log(
      `oom row: at most ${spooledAtMost} deliveries on disk; the ops channel heard during it: ${JSON.stringify(toldDuringOom.map((t) => t.slice(0, 80)))}`,
    );
    expect(r.errors).toEqual([]);
    expect(r.verdict.refusedDeliveries).toEqual([]);
    expect(r.figures.ok).toBe(r.figures.deliveries);
    expect(r.figures.slowestAckMs).toBeLessThan(10_000);
    expect(spooledAtMost).toBeGreaterThan(0);
    expect(r.verdict.lost).toEqual([]);
    expect(r.verdict.duplicated).toEqual([]);
    // Readiness said why; the ops channel was told once while it lasted.
    expect(r.readiness.reasons().join("\n")).toContain("OOM command not allowed");
    const oom = toldDuringOom.filter((t) => t.startsWith("Redis is out of memory (maxmemory reached)"));
    expect(oom).toHaveLength(1);
    expect(oom[0]).toContain("Webhook deliveries are still acknowledged and kept on disk");
    // Told again once it is over.
    await h.slack.waitFor(() => opsMessages(h).find((m) => m.text === "Workers fetch jobs again."), {
      timeoutMs: 40_000,
    });
    expect(opsMessages(h).filter((m) => m.text.startsWith("Redis is out of memory"))).toHaveLength(1);
    expect(r.figures.ops).toContain("The webhook spool has drained.");
    expect(await spooledAcks(h)).toBeGreaterThan(0);
  }, 150_000);
});
