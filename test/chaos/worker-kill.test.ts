import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { spawnAppProcess, startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { follow, waitUntil } from "../reconcile/support.js";
import { DigestFlow, settleFlow } from "./flow.js";

const OTHER_CHANNEL = "C0CHAOSTWO";

describe("chaos: a worker killed with SIGKILL while digests flow", () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    // The web role here; the workers (and the reconciler) in child processes that can be killed.
    h = await startHarness({ env: { ROLE: "web" } });
    await follow(h, SEED.groups.support, TEST_CHANNEL);
    await follow(h, SEED.groups.contributors, OTHER_CHANNEL);
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await h?.stop();
  });

  const startChild = async (role: "worker" | "scheduler") => {
    const child = await spawnAppProcess(h, role, { RECONCILE_INTERVAL: "3" });
    children.push(child);
    return child;
  };

  it("answers every delivery 2xx, loses no digest and posts none twice", async () => {
    const victim = await startChild("worker");
    await startChild("scheduler");
    const flow = new DigestFlow(h, [
      { groupId: SEED.groups.support, channel: TEST_CHANNEL },
      { groupId: SEED.groups.contributors, channel: OTHER_CHANNEL },
    ]);
    flow.start(8);
    await new Promise((r) => setTimeout(r, 3_000));
    // Kill it while it holds jobs: a Slack post hangs, so one is surely mid-flight (in a
    // delivery's job when the card went at once, in a Slack job when it waited for its turn).
    h.slack.fail.hang("chat.postMessage", { count: 1 });
    const busy = await waitUntil(async () => {
      const hung = h.slack.calls.some((c) => c.method === "chat.postMessage" && c.error === "hang");
      const { deliveries, slack } = h.services.queues;
      const active = (await deliveries.getActiveCount()) + (await slack.getActiveCount());
      return hung && active > 0;
    }, 5_000);
    expect(busy).toBe(true);
    victim.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 3_000));
    await startChild("worker");
    await new Promise((r) => setTimeout(r, 3_000));
    await flow.stop();
    expect(flow.errors).toEqual([]);

    const v = await settleFlow(h, flow, { timeoutMs: 45_000 });
    expect(v.threads).toBeGreaterThan(40);
    expect(v.refusedDeliveries).toEqual([]);
    expect(v.webhookDisabled).toBe(false);
    expect(v.lost).toEqual([]);
    expect(v.duplicated).toEqual([]);
  }, 120_000);
});
