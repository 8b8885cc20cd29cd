import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED, threadEvent } from "../../dev/emulator/index.js";
import { INTAKE_STALLED } from "../../src/ops/incidents.js";
import {
  OPS_CHANNEL,
  spawnAppProcess,
  startHarness,
  TEST_CHANNEL,
  type Harness,
} from "../helpers/app-harness.js";
import { follow, waitUntil } from "../reconcile/support.js";

// Real Redis, the emulator, the stand-in Slack: a web role alone acknowledges a delivery that
// no worker moves on, and its health watch says so; a worker role started later drains it.
describe("the health watch and an intake nobody moves", () => {
  let h: Harness;
  let worker: ChildProcess | undefined;
  beforeAll(async () => {
    h = await startHarness({ env: { ROLE: "web" }, tuning: { healthWatchMs: 200, intakeStalledMs: 1_000 } });
    await follow(h, SEED.groups.support);
  });
  afterAll(async () => {
    worker?.kill("SIGKILL");
    await h?.stop();
  });

  it("alerts when acknowledged deliveries do not reach the workers, and resolves once a worker role moves them", async () => {
    const group = h.emulator.store.group(SEED.groups.support);
    if (!group) throw new Error("no support group");
    const thread = h.emulator.store.addThread(SEED.groups.support);
    const ack = await h.deliver(threadEvent("updated", group, thread, new Date()));
    expect(ack.status).toBe(200);

    const { redis, keys } = h.services;
    const alerted = await waitUntil(
      async () => (await redis.hget(keys.opsAlerts, INTAKE_STALLED)) !== null,
      10_000,
    );
    expect(alerted).toBe(true);
    const line = h.logLines.find((l) => l.includes("not reaching the workers"));
    expect(line).toContain("1 delivery has waited in Redis for");
    expect(line).toContain("ROLE=worker");

    worker = await spawnAppProcess(h, "worker");
    const resolved = await waitUntil(
      async () => (await redis.hget(keys.opsAlerts, INTAKE_STALLED)) === null,
      15_000,
    );
    expect(resolved).toBe(true);
    // Nothing was lost: the card of the delivery that waited is posted, once.
    expect(await waitUntil(() => h.slack.messages(TEST_CHANNEL).length > 0, 15_000)).toBe(true);
    expect(h.slack.messages(TEST_CHANNEL)).toHaveLength(1);
    // And the ops channel has both notices, the alert first.
    const posted = await waitUntil(
      async () =>
        h.slack.messages(OPS_CHANNEL).some((m) => (m.text ?? "").includes("reach the workers again")),
      15_000,
    );
    expect(posted).toBe(true);
    const ops = h.slack.messages(OPS_CHANNEL).map((m) => m.text ?? "");
    expect(ops.findIndex((t) => t.includes("not reaching the workers"))).toBeGreaterThanOrEqual(0);
    expect(ops.findIndex((t) => t.includes("not reaching the workers"))).toBeLessThan(
      ops.findIndex((t) => t.includes("reach the workers again")),
    );
  }, 60_000);
});
