import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { follow } from "../reconcile/support.js";
import { DigestFlow, settleFlow } from "./flow.js";

const OTHER_CHANNEL = "C0CHAOSTWO";
const OUTAGE_MS = 60_000;

describe("chaos: Slack answers 5xx for a minute while digests flow", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { RECONCILE_INTERVAL: "5" } });
    await follow(h, SEED.groups.support, TEST_CHANNEL);
    await follow(h, SEED.groups.contributors, OTHER_CHANNEL);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("answers every delivery 2xx and, once Slack is back, has every digest exactly once", async () => {
    const flow = new DigestFlow(h, [
      { groupId: SEED.groups.support, channel: TEST_CHANNEL },
      { groupId: SEED.groups.contributors, channel: OTHER_CHANNEL },
    ]);
    // Digests flow, then Slack fails every call for a minute while more arrive.
    await flow.runFor(2_000, 5);
    h.slack.fail.serverError("*", { count: 1_000_000, status: 503 });
    const outageEnds = Date.now() + OUTAGE_MS;
    await flow.runFor(20_000, 5);
    await new Promise((r) => setTimeout(r, outageEnds - Date.now()));
    const failed = h.slack.calls.filter((c) => c.status === 503).length;
    h.slack.fail.clear();
    expect(flow.errors).toEqual([]);
    expect(failed).toBeGreaterThan(20);

    // Jobs retry with exponential backoff (2 s doubling): the last ones come back within ~70 s.
    const v = await settleFlow(h, flow, { timeoutMs: 90_000 });
    expect(v.threads).toBeGreaterThan(60);
    expect(v.refusedDeliveries).toEqual([]);
    expect(v.webhookDisabled).toBe(false);
    expect(v.lost).toEqual([]);
    expect(v.duplicated).toEqual([]);
  }, 200_000);
});
