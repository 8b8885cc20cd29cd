import { collectDefaultMetrics, Registry } from "prom-client";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BUSY_UTILIZATION,
  capturingEventLoopHistogram,
  LOOK_EVERY_MS,
  sampleWhileBusy,
  worthSampling,
} from "../../src/event-loop-sampling.js";

describe("event-loop delay sampled while the process works", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("switches the histogram on for a busy spell and off for an idle one, at each look", async () => {
    // On a beat of the clock (on-the-beat.ts): started on one, so four looks in four periods.
    vi.useFakeTimers({ now: 0 });
    const calls: string[] = [];
    const spells = [0, 0.3, 0.05, 0.0001];
    const stop = sampleWhileBusy(
      { enable: () => (calls.push("on"), true), disable: () => (calls.push("off"), true) },
      { utilization: () => spells.shift() ?? 0 },
    );
    await vi.advanceTimersByTimeAsync(LOOK_EVERY_MS * 4);
    expect(calls).toEqual(["off", "on", "on", "off"]);
    stop();
    await vi.advanceTimersByTimeAsync(LOOK_EVERY_MS * 4);
    expect(calls).toHaveLength(4);
  });

  it("counts a loop busy a fifth of a percent of the time as idle", () => {
    expect(worthSampling(BUSY_UTILIZATION)).toBe(false);
    expect(worthSampling(0.01)).toBe(true);
  });

  it("counts an idle window as idle even when its looks run slow (45 ms of work in 15 s)", () => {
    // A health look (about 3 ms) and a BullMQ round (about 7 ms) a window, cold: far below this.
    expect(worthSampling(0.003)).toBe(false);
    expect(worthSampling(45 / LOOK_EVERY_MS)).toBe(false);
    // A trickle of deliveries (a job takes a few ms) is work: sampled.
    expect(worthSampling(0.02)).toBe(true);
  });

  it("gets hold of the histogram prom-client enables, and its metrics still come out", async () => {
    const registry = new Registry();
    const histogram = capturingEventLoopHistogram(() =>
      collectDefaultMetrics({ register: registry, prefix: "t_", eventLoopMonitoringPrecision: 20 }),
    );
    expect(histogram).toBeDefined();
    await new Promise((r) => setTimeout(r, 100));
    expect(histogram?.count ?? 0).toBeGreaterThan(0);
    // prom-client switched it on; switching it off here stops its timer (true: it was on).
    expect(histogram?.disable()).toBe(true);
    histogram?.reset();
    await new Promise((r) => setTimeout(r, 100));
    expect(histogram?.count).toBe(0);
    const text = await registry.metrics();
    expect(text).toContain("t_nodejs_eventloop_lag_p99_seconds");
    // Sampling off (idle) between two scrapes: no sample, and the gauges say 0, not 2^63 ns.
    const idle = await registry.metrics();
    expect(idle).toMatch(/^t_nodejs_eventloop_lag_min_seconds 0$/m);
    expect(idle).toMatch(/^t_nodejs_eventloop_lag_mean_seconds 0$/m);
  });
});
