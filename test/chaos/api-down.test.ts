import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { BaselineStore } from "../../src/reconcile/baseline-store.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { follow, opsMessages, waitUntil } from "../reconcile/support.js";
import { DigestFlow, settleFlow } from "./flow.js";

const OTHER_CHANNEL = "C0CHAOSTWO";
const OUTAGE_MS = 60_000;

describe("chaos: the Insight API down for a minute while digests flow", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { RECONCILE_INTERVAL: "4" } });
    await follow(h, SEED.groups.support, TEST_CHANNEL);
    await follow(h, SEED.groups.contributors, OTHER_CHANNEL);
    const store = new BaselineStore(h.services.redis, h.services.keys);
    await waitUntil(async () => (await store.groups()).length === 2, 15_000);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("posts every digest once without sentiment during the outage and completes each one after", async () => {
    const flow = new DigestFlow(h, [
      { groupId: SEED.groups.support, channel: TEST_CHANNEL },
      { groupId: SEED.groups.contributors, channel: OTHER_CHANNEL },
    ]);
    await flow.runFor(2_000, 3);
    // Connections to the API are cut without an answer, for a minute.
    h.emulator.faults.set({ down: true });
    const outageEnds = Date.now() + OUTAGE_MS;
    await flow.runFor(25_000, 3);
    expect(flow.errors).toEqual([]);
    // Digests kept going out meanwhile, without their sentiment.
    const duringOutage = h.slack.messages(TEST_CHANNEL).length + h.slack.messages(OTHER_CHANNEL).length;
    expect(duringOutage).toBeGreaterThan(30);
    await new Promise((r) => setTimeout(r, outageEnds - Date.now()));
    h.emulator.faults.clear();

    // The refresh jobs gave up during the outage; the reconciler completes the sentiments.
    const v = await settleFlow(h, flow, { timeoutMs: 30_000, sentiment: true });
    expect(v.threads).toBeGreaterThan(40);
    expect(v.refusedDeliveries).toEqual([]);
    expect(v.webhookDisabled).toBe(false);
    expect(v.lost).toEqual([]);
    expect(v.duplicated).toEqual([]);
    expect(v.withoutSentiment).toEqual([]);
    expect(opsMessages(h).filter((m) => m.text.includes("look stopped"))).toEqual([]);
  }, 200_000);
});
