import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Redis } from "ioredis";
import type { Harness } from "../helpers/app-harness.js";
import { faultRow, spooledAcks, startChaosRig, type ChaosRig, type FlowTarget } from "./flow.js";

describe("chaos: Redis clients paused (CLIENT PAUSE) longer than the acknowledgement's budget", () => {
  let rig: ChaosRig;
  let admin: Redis;
  let h: Harness;
  let targets: FlowTarget[];
  beforeAll(async () => {
    rig = await startChaosRig();
    ({ admin, h, targets } = rig);
  });
  afterAll(async () => {
    await rig?.stop();
  });

  it("acknowledges every delivery within 10 s (spooled), and posts everything once after", async () => {
    const r = await faultRow(h, targets, "clients paused 12 s", async () => {
      await admin.call("CLIENT", "PAUSE", "12000", "ALL");
      await new Promise((res) => setTimeout(res, 12_000));
    });
    expect(r.errors).toEqual([]);
    expect(r.verdict.refusedDeliveries).toEqual([]);
    expect(r.figures.ok).toBe(r.figures.deliveries);
    expect(r.figures.slowestAckMs).toBeLessThan(10_000);
    expect(r.verdict.lost).toEqual([]);
    expect(r.verdict.duplicated).toEqual([]);
    expect(r.figures.notReadyBecause).toEqual(["Redis did not answer within 900 ms"]);
    expect(r.figures.ops).toEqual([]);
    expect(await spooledAcks(h)).toBeGreaterThan(0);
  }, 120_000);
});
