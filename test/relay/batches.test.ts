import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { intakeLength } from "../../src/intake/view.js";
import { MAX_BATCH_JOB } from "../../src/intake/batch-jobs.js";
import { deliveriesOf } from "../../src/jobs/job-types.js";
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
// them 100 at a time, each batch into jobs of up to 20 (jobs/intake-pump.ts, jobs/process-batch.ts).
describe("relay: deliveries acknowledged together go through batch jobs", () => {
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

  it("thirty deliveries waiting become two batch jobs (twenty and ten), and each card is posted once, with its sentiment", async () => {
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
    expect(done.map((j) => j.name)).toEqual(["batch", "batch"]);
    const sizes = done.map((j) => deliveriesOf(j.data).length).sort((a, b) => b - a);
    expect(sizes).toEqual([MAX_BATCH_JOB, THREADS - MAX_BATCH_JOB]);
    const queued = done.flatMap((j) => deliveriesOf(j.data)).map((d) => d.event.payload.threadId);
    expect([...queued].sort()).toEqual(threads.map((t) => t.id).sort());
    for (const j of done) {
      expect(j.returnvalue).toEqual({ deliveries: deliveriesOf(j.data).length, requeued: 0 });
    }
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
    // The batch of the hung card ran again after its lock expired, as jobs of one delivery each
    // (a batch is never cut short twice): wait for all of them to finish before counting.
    const split = async () => {
      const done = await h.services.queues.deliveries.getJobs(["completed"]);
      const batch = done.find((j) => j.name === "batch" && j.attemptsStarted === 2);
      const alone = new Set(done.filter((j) => j.name !== "batch").map((j) => j.id));
      const ids = deliveriesOf(batch?.data ?? { batch: [] }).map((d) => d.deliveryId);
      return batch && ids.every((id) => alone.has(id))
        ? { result: batch.returnvalue as unknown, size: ids.length }
        : undefined;
    };
    expect(await waitUntil(async () => (await split()) !== undefined, 15_000)).toBe(true);
    const ran = await split();
    expect(ran?.result).toEqual({ deliveries: ran?.size, requeued: ran?.size, split: true });
    await new Promise((r) => setTimeout(r, 500));
    for (const t of threads) expect(digestsOf(h, t.id)).toHaveLength(1);
  }, 60_000);
});
