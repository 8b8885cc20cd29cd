import { describe, expect, it } from "vitest";
import { limitPerQueue } from "../../src/jobs/limit-per-queue.js";

describe("limitPerQueue", () => {
  it("runs at most n tasks at once in one queue, and n in each of two queues", async () => {
    const limit = limitPerQueue(2);
    let release = () => undefined as void;
    const gate = new Promise<void>((r) => (release = r));
    const running = new Map<string, number>();
    const task = (queue: string) =>
      limit(queue)(async () => {
        running.set(queue, (running.get(queue) ?? 0) + 1);
        await gate;
      });
    const all = [task("deliveries-0"), task("deliveries-0"), task("deliveries-0"), task("deliveries-1")];
    all.push(task("deliveries-1"), task("deliveries-1"));
    await new Promise((r) => setTimeout(r, 20));
    // The third of each queue waits; one queue's tasks never wait for the other's.
    expect(Object.fromEntries(running)).toEqual({ "deliveries-0": 2, "deliveries-1": 2 });
    expect(limit("deliveries-0").pendingCount).toBe(1);
    release();
    await Promise.all(all);
    expect(Object.fromEntries(running)).toEqual({ "deliveries-0": 3, "deliveries-1": 3 });
  });
});
