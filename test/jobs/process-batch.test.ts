import { afterAll, describe, expect, it } from "vitest";
import { batchJobs, MAX_BATCH_JOB } from "../../src/intake/batch-jobs.js";
import { processDeliveryBatch, REQUEUE_DELAY_MS, splitDeliveryBatch } from "../../src/jobs/process-batch.js";
import type { DeliveryResult } from "../../src/jobs/process-delivery.js";
import { deliveriesQueue } from "../../src/jobs/queue-registry.js";
import type { DeliveryJob } from "../../src/jobs/job-types.js";
import { createLogger, silentLogger, type Logger } from "../../src/log.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { Writable } from "node:stream";

const delivery = (n: number, threadId = `t-${n}`): DeliveryJob => ({
  deliveryId: `d-${n}`,
  receivedAt: new Date(1_700_000_000_000 + n).toISOString(),
  deduplicated: true,
  event: {
    webhookType: "chatthread-crud",
    actionType: "updated",
    payload: {
      threadId,
      groupId: "g-1",
      communityId: "c-1",
      timestamp: new Date(1_700_000_000_000 + n).toISOString(),
      title: `Thread ${n}`,
      summary: "",
    },
  },
});
const routed: DeliveryResult = {
  kind: "thread",
  route: { channels: 1, filteredOut: 0, sentimentKnown: true },
};

describe("batchJobs: a run of the intake's deliveries as jobs", () => {
  const oneShard = () => 0;

  it("puts a shard's deliveries in one job, in order, named after its first and last", () => {
    const jobs = batchJobs([delivery(1), delivery(2), delivery(3)], oneShard);
    expect(jobs).toEqual([
      {
        name: "batch",
        data: { batch: [delivery(1), delivery(2), delivery(3)] },
        opts: { jobId: "batch|d-1|d-3|3" },
      },
    ]);
  });

  it("gives a delivery alone a job of its own, under its delivery id", () => {
    expect(batchJobs([delivery(7)], oneShard)).toEqual([
      { name: "chatthread-crud", data: delivery(7), opts: { jobId: "d-7" } },
    ]);
  });

  it("makes one job per shard, in the order of each shard's first delivery, each in its deliveries' order", () => {
    const shard = (d: DeliveryJob) => (d.event.payload.threadId === "odd" ? 1 : 0);
    const run = [
      delivery(1, "odd"),
      delivery(2, "even"),
      delivery(3, "odd"),
      delivery(4, "even"),
      delivery(5, "odd"),
    ];
    const jobs = batchJobs(run, shard);
    expect(jobs.map((j) => j.opts.jobId)).toEqual(["batch|d-1|d-5|3", "batch|d-2|d-4|2"]);
    expect(jobs[0]?.data).toEqual({ batch: [run[0], run[2], run[4]] });
  });

  it(`puts at most ${MAX_BATCH_JOB} deliveries in a job: a shard's 41 go as 20, 20 and one alone`, () => {
    const run = Array.from({ length: 41 }, (_, i) => delivery(i + 1));
    const jobs = batchJobs(run, oneShard);
    expect(jobs.map((j) => j.opts.jobId)).toEqual(["batch|d-1|d-20|20", "batch|d-21|d-40|20", "d-41"]);
    expect(jobs.flatMap((j) => ("batch" in j.data ? j.data.batch : [j.data]))).toEqual(run);
  });

  it("keeps one copy of a delivery that is in the run twice; one left is a job of its own", () => {
    expect(batchJobs([delivery(1), { ...delivery(1) }], oneShard)).toEqual([
      { name: "chatthread-crud", data: delivery(1), opts: { jobId: "d-1" } },
    ]);
    expect(batchJobs([delivery(1), delivery(2), delivery(1)], oneShard)[0]?.opts.jobId).toBe(
      "batch|d-1|d-2|2",
    );
  });
});

/** A logger whose lines the test reads. */
function capturedLogger(level: "info" | "warn"): { lines: string[]; logger: Logger } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString("utf8"));
      cb();
    },
  });
  return { lines, logger: createLogger({ level, destination }) };
}

describe("processDeliveryBatch", () => {
  const redis = createRedis(testRedisUrl(), "shared", silentLogger);
  const prefix = uniquePrefix("batch");
  const queue = deliveriesQueue(redis, prefix);
  afterAll(async () => {
    await queue.close();
    redis.disconnect();
    await dropPrefix(prefix);
  });

  it("processes every delivery at once, and queues nothing when all went through", async () => {
    const started: string[] = [];
    let release = () => undefined as void;
    const gate = new Promise<void>((r) => (release = r));
    const result = processDeliveryBatch([delivery(1), delivery(2), delivery(3)], {
      process: async (d) => {
        started.push(d.deliveryId);
        await gate;
        return routed;
      },
      deliveriesQueue: () => queue,
      logger: silentLogger,
    });
    // All three started before any finished.
    await new Promise((r) => setTimeout(r, 20));
    expect(started).toEqual(["d-1", "d-2", "d-3"]);
    release();
    expect(await result).toEqual({ deliveries: 3, requeued: 0 });
    expect(await queue.count()).toBe(0);
  });

  it("runs one thread's deliveries in their order, each after the one before settled, other threads at once", async () => {
    const events: string[] = [];
    const gates = new Map<string, () => void>();
    const result = processDeliveryBatch(
      [delivery(1, "t-a"), delivery(2, "t-b"), delivery(3, "t-a"), delivery(4, "t-a")],
      {
        process: async (d) => {
          events.push(`start ${d.deliveryId}`);
          if (d.deliveryId === "d-3") throw new Error("the listing failed");
          await new Promise<void>((r) => gates.set(d.deliveryId, r));
          events.push(`end ${d.deliveryId}`);
          return routed;
        },
        deliveriesQueue: () => queue,
        logger: silentLogger,
      },
    );
    await new Promise((r) => setTimeout(r, 20));
    // t-a's first and t-b's run together; t-a's second waits for its first.
    expect(events).toEqual(["start d-1", "start d-2"]);
    gates.get("d-1")?.();
    await new Promise((r) => setTimeout(r, 20));
    // d-3 failed; d-4 still runs after it, in order.
    expect(events).toEqual(["start d-1", "start d-2", "end d-1", "start d-3", "start d-4"]);
    gates.get("d-2")?.();
    gates.get("d-4")?.();
    expect(await result).toEqual({ deliveries: 4, requeued: 1 });
    await (await queue.getJob("d-3"))?.remove();
  });

  it("a delivery that fails goes again as a job of its own, delayed; the others are done and the batch succeeds", async () => {
    const { lines, logger } = capturedLogger("warn");
    const done: string[] = [];
    const result = await processDeliveryBatch([delivery(11), delivery(12), delivery(13)], {
      process: async (d) => {
        if (d.deliveryId === "d-12") throw new Error("Redis unavailable");
        done.push(d.deliveryId);
        return routed;
      },
      deliveriesQueue: () => queue,
      logger,
    });
    expect(result).toEqual({ deliveries: 3, requeued: 1 });
    expect(done).toEqual(["d-11", "d-13"]);
    const again = await queue.getJob("d-12");
    expect(again?.name).toBe("chatthread-crud");
    expect(again?.data).toEqual(delivery(12));
    expect(again?.opts.delay).toBe(REQUEUE_DELAY_MS);
    expect(await again?.getState()).toBe("delayed");
    // Its own attempts: the deliveries queue's defaults.
    expect(again?.opts.attempts).toBe(8);
    const [line] = lines.map(
      (l) => JSON.parse(l) as { msg: string; failed: number; of: number; deliveryId: string },
    );
    expect(line).toMatchObject({ failed: 1, of: 3, deliveryId: "d-12" });
    expect(line?.msg).toContain("each goes again as a job of its own");
  });

  it("fails the batch (to be run again whole) when a failed delivery cannot be queued again", async () => {
    await expect(
      processDeliveryBatch([delivery(21), delivery(22)], {
        process: async () => {
          throw new Error("Redis unavailable");
        },
        deliveriesQueue: () => ({
          add: async () => {
            throw new Error("Redis unavailable");
          },
        }),
        logger: silentLogger,
      }),
    ).rejects.toThrow("Redis unavailable");
  });

  it("a batch that runs again is split: each delivery goes in order as a job of its own, none twice", async () => {
    // One of them already has a job of its own (it had failed in the first run and gone again).
    await queue.add("chatthread-crud", delivery(32), { jobId: "d-32", delay: REQUEUE_DELAY_MS });
    const { lines, logger } = capturedLogger("info");
    const batch = [delivery(31), delivery(32), delivery(33)];
    const result = await splitDeliveryBatch(
      batch,
      { deliveriesQueue: () => queue, logger },
      "batch|d-31|d-33|3",
    );
    expect(result).toEqual({ deliveries: 3, requeued: 3, split: true });
    const waiting = await queue.getJobs(["waiting"]);
    // Oldest first: the batch's order.
    expect(waiting.map((j) => j.id).reverse()).toEqual(["d-31", "d-33"]);
    for (const j of waiting) {
      expect(j.name).toBe("chatthread-crud");
      expect(j.opts.attempts).toBe(8);
    }
    expect((await queue.getJob("d-31"))?.data).toEqual(delivery(31));
    // The one already queued keeps its job (and its delay): not queued twice.
    expect(await (await queue.getJob("d-32"))?.getState()).toBe("delayed");
    const [line] = lines.map((l) => JSON.parse(l) as { msg: string; jobId: string; deliveries: number });
    expect(line).toMatchObject({ jobId: "batch|d-31|d-33|3", deliveries: 3 });
    expect(line?.msg).toContain("each delivery goes as a job of its own");
  });
});
