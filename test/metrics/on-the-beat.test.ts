import { afterEach, describe, expect, it, vi } from "vitest";
import { onTheBeat } from "../../src/on-the-beat.js";

describe("periodic looks on the beat of the clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("looks started at different moments run at the same instants, every period, until stopped", async () => {
    vi.useFakeTimers({ now: 1_000 });
    const runs: [string, number][] = [];
    const stopA = onTheBeat(15_000, () => runs.push(["a", Date.now()]));
    await vi.advanceTimersByTimeAsync(4_321);
    const stopB = onTheBeat(15_000, () => runs.push(["b", Date.now()]));
    await vi.advanceTimersByTimeAsync(40_000);
    expect(runs).toEqual([
      ["a", 15_000],
      ["b", 15_000],
      ["a", 30_000],
      ["b", 30_000],
      ["a", 45_000],
      ["b", 45_000],
    ]);
    stopA();
    await vi.advanceTimersByTimeAsync(15_000);
    expect(runs.slice(6)).toEqual([["b", 60_000]]);
    stopB();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toHaveLength(7);
  });

  it("a start just before a beat skips it: no two runs a hair apart", async () => {
    vi.useFakeTimers({ now: 14_999 });
    const runs: number[] = [];
    const stop = onTheBeat(15_000, () => runs.push(Date.now()));
    await vi.advanceTimersByTimeAsync(31_000);
    expect(runs).toEqual([30_000, 45_000]);
    stop();
  });
});
