// A backlog of deliveries is shared by the worker processes (the leftover of an earlier
// closing note: "batches spread unevenly"). How a process's share comes about: each step of the
// intake pump adds a hundred deliveries as five batch jobs, one add after another (an ioredis
// pipeline); each add sets BullMQ's marker, which wakes one blocked worker, so a step wakes
// both processes, and each then fetches job after job while its concurrency (50 jobs) allows.
// The five go to whichever answers first: 3/2 or 2/3 mostly, 5/0 at times. The process that
// leads the pump is not first to fetch what it adds (first in 45 of 98 steps, measured): it also
// runs the pump, and ends with a little less (42% of 1,000 on average over nine runs). A share
// is thus a sum of races, one per step: over ten steps (1,000 deliveries) the smaller share was
// 26-50% over ten runs on a 2-core VM (a CI run: 26%), too close to the quarter asserted; over
// thirty steps (3,000) it was 40-50% over twenty runs. Counting a batch for its deliveries
// against a worker's concurrency does not change it: BullMQ fetches what its concurrency allows
// before any job starts (tried, measured, left out).
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { deliveriesOf } from "../../src/jobs/job-types.js";
import { formatIntakeEntry } from "../../src/intake/entry.js";
import { spawnAppProcess, startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { follow, threadDelivery, waitUntil } from "../reconcile/support.js";

const GROUP = SEED.groups.support;
/** Thirty of the pump's steps: the races of the steps average out well clear of the share asserted. */
const BURST = 3_000;

describe("a burst of deliveries with two worker processes", () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    h = await startHarness({ env: { ROLE: "web" }, registerWebhook: false });
    await follow(h, GROUP, TEST_CHANNEL);
    for (let i = 0; i < 2; i++) children.push(await spawnAppProcess(h, "worker"));
  });
  afterAll(async () => {
    for (const c of children) c.kill("SIGKILL");
    await h?.stop();
  });

  it("is shared by both: each processes at least a quarter of it", async () => {
    const threads = h.emulator.store.addThreads(GROUP, BURST, { withinDays: 1 });
    const at = new Date().toISOString();
    // A backlog at once, as after an outage (the spool replayed) or a service catching up: the
    // receiver's one append of them all, which the pump moves in steps of a hundred.
    await h.services.redis.rpush(
      h.services.keys.intake,
      ...threads.map((t, i) =>
        formatIntakeEntry(at, JSON.stringify(threadDelivery(GROUP, t.id, at, { title: t.title })), {
          receipt: `burst-${i}`,
        }),
      ),
    );
    const deliveries = h.services.queues.deliveries;
    const perProcess = new Map<string, number>();
    const done = await waitUntil(async () => {
      const jobs = await deliveries.getJobs(["completed"], 0, -1);
      perProcess.clear();
      for (const j of jobs) {
        const by = j.processedBy ?? "?";
        perProcess.set(by, (perProcess.get(by) ?? 0) + deliveriesOf(j.data).length);
      }
      return [...perProcess.values()].reduce((a, b) => a + b, 0) >= BURST;
    }, 90_000);
    console.log(
      `batch spread: ${BURST} deliveries processed as ${JSON.stringify(Object.fromEntries(perProcess))}`,
    );
    expect(done).toBe(true);
    expect(perProcess.size).toBe(2);
    for (const n of perProcess.values()) expect(n).toBeGreaterThanOrEqual(BURST / 4);
  }, 120_000);
});
