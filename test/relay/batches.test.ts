import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { intakeLength } from "../../src/jobs/intake-pump.js";
import { deliveriesOf } from "../../src/jobs/queues.js";
import {
  digestsOf,
  FAST_TUNING,
  spawnAppProcess,
  startHarness,
  type Harness,
} from "../helpers/app-harness.js";
import { follow, waitUntil } from "../reconcile/support.js";

const GROUP = SEED.groups.support;
const THREADS = 30;

// Deliveries acknowledged while no worker runs wait in the intake; the worker's pump then moves
// them 100 at a time, each batch into one job (jobs/intake-pump.ts, jobs/process-batch.ts).
describe("relay: deliveries acknowledged together go through one batch job", () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    h = await startHarness({ env: { ROLE: "web" } });
    // No worker in this process: subscribe through the store directly.
    await follow(h, GROUP);
  });
  beforeEach(async () => {
    // Each test counts its own batch job.
    for (const q of h.services.queues.deliveries.shards()) await q.clean(0, 1_000, "completed");
  });
  afterEach(() => {
    for (const c of children.splice(0)) c.kill("SIGKILL");
  });
  afterAll(async () => {
    await h?.stop();
  });

  const startWorker = async () => {
    // Every card's turn is now: the batch's deliveries post at once, together.
    const tuning = { ...FAST_TUNING, lockDurationMs: 2_000, stalledIntervalMs: 500, channelGapMs: 0 };
    const child = await spawnAppProcess(h, "worker", { TEST_TUNING: JSON.stringify(tuning) });
    children.push(child);
    return child;
  };

  /** Enriches `THREADS` new threads and waits until their deliveries wait in the intake. */
  const burst = async (title: string) => {
    const threads = await Promise.all(
      Array.from({ length: THREADS }, (_, i) =>
        h.emulator.createThread(GROUP, { title: `${title} ${i}`, sentiment: "positive" }),
      ),
    );
    expect(
      await waitUntil(async () => (await intakeLength(h.services.redis, h.services.keys)) >= THREADS),
    ).toBe(true);
    return threads.map((t) => t.thread);
  };

  it("thirty deliveries waiting become one job, and each card is posted once, with its sentiment", async () => {
    const threads = await burst("Batched");
    await startWorker();
    await h.slack.waitFor(() => threads.every((t) => digestsOf(h, t.id).length > 0), { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 500));
    for (const t of threads) {
      const cards = digestsOf(h, t.id);
      expect(cards).toHaveLength(1);
      expect(JSON.stringify(cards[0]?.blocks)).toContain("Positive");
    }
    const done = await h.services.queues.deliveries.getJobs(["completed"]);
    expect(done.map((j) => j.name)).toEqual(["batch"]);
    // In the order they were acknowledged, which the concurrent sends need not keep.
    const queued = done.flatMap((j) => deliveriesOf(j.data)).map((d) => d.event.payload.threadId);
    expect([...queued].sort()).toEqual(threads.map((t) => t.id).sort());
    expect(done[0]?.returnvalue).toEqual({ deliveries: THREADS, requeued: 0 });
  }, 40_000);

  it("SIGKILL while one card of the batch is on its way: the next worker splits the batch, each delivery runs again alone, and no card is posted twice", async () => {
    const threads = await burst("Killed batch");
    h.slack.fail.hang("chat.postMessage", { count: 1 });
    const first = await startWorker();
    // One call hangs; the batch's other cards are posted meanwhile.
    await h.slack.waitFor(() => threads.filter((t) => digestsOf(h, t.id).length > 0).length >= THREADS - 1, {
      timeoutMs: 15_000,
    });
    first.kill("SIGKILL");
    h.slack.fail.clear();
    h.slack.fail.dropHung();
    await startWorker();
    await h.slack.waitFor(() => threads.every((t) => digestsOf(h, t.id).length > 0), { timeoutMs: 30_000 });
    // The batch ran again after its lock expired, as jobs of one delivery each (a batch is never
    // cut short twice): wait for all of them to finish before counting.
    const completed = async () => (await h.services.queues.deliveries.getJobCounts("completed")).completed;
    expect(await waitUntil(async () => (await completed()) === 1 + THREADS, 15_000)).toBe(true);
    const done = await h.services.queues.deliveries.getJobs(["completed"]);
    const batch = done.find((j) => j.name === "batch");
    expect(batch?.returnvalue).toEqual({ deliveries: THREADS, requeued: THREADS, split: true });
    expect(batch?.attemptsStarted).toBe(2);
    const alone = done.filter((j) => j.name !== "batch").map((j) => j.id);
    expect([...alone].sort()).toEqual(
      deliveriesOf(batch?.data ?? { batch: [] })
        .map((d) => d.deliveryId)
        .sort(),
    );
    await new Promise((r) => setTimeout(r, 500));
    for (const t of threads) expect(digestsOf(h, t.id)).toHaveLength(1);
  }, 60_000);
});
