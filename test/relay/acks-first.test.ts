import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED, threadEvent } from "../../dev/emulator/index.js";
import { intakeLength } from "../../src/intake/view.js";
import { digestsOf, startHarness, type Harness } from "../helpers/app-harness.js";
import { follow, waitUntil } from "../reconcile/support.js";

const GROUP = SEED.groups.support;
const DELIVERIES = 120;
const AT_ONCE = 10;

// Real Redis, the emulator, the stand-in Slack, one process of role all: a burst is acknowledged
// first and processed after it (intake/pump.ts ACKS_FIRST_HOLD_MS). The threshold is lowered to
// 5 acknowledgements in 100 ms so that a slow machine still makes a burst of ten at a time.
describe("relay: a process of role all acknowledges a burst first", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tuning: { busyAcks: 5, channelGapMs: 0 } });
    await follow(h, GROUP);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("holds the burst's deliveries in the intake while they come, then posts every card once", async () => {
    const group = h.emulator.store.group(GROUP);
    if (!group) throw new Error("no support group");
    const threads = Array.from({ length: DELIVERIES }, (_, i) =>
      h.emulator.store.addThread(GROUP, { title: `Burst ${i}`, sentiment: "positive" }),
    );
    const bodies = threads.map((t) => threadEvent("created", group, t, new Date()));
    const statuses: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++];
          if (body) statuses.push((await h.deliver(body)).status);
        }
      }),
    );
    const heldAtTheEnd = await intakeLength(h.services.redis, h.services.keys);
    expect(statuses).toEqual(bodies.map(() => 200));
    // Most of the burst was still waiting when its last delivery was answered.
    expect(heldAtTheEnd).toBeGreaterThanOrEqual(DELIVERIES / 2);
    expect(h.logLines.some((l) => l.includes("the intake pump holds deliveries back"))).toBe(true);

    // Quiet again: the pump moves them, and each thread gets its one card.
    expect(
      await waitUntil(() => threads.every((t) => digestsOf(h, t.id).length > 0), 30_000),
    ).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    for (const t of threads) expect(digestsOf(h, t.id)).toHaveLength(1);
    expect(await intakeLength(h.services.redis, h.services.keys)).toBe(0);
    expect(h.logLines.some((l) => l.includes("the intake pump moves deliveries again"))).toBe(true);
  }, 60_000);
});
