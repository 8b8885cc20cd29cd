// The budget of sends sleeping for their channel's turn: real timers, waits of tens of ms.
import { describe, expect, it } from "vitest";
import { waitInPlace } from "../../../src/jobs/slack-jobs/wait-in-place.js";

describe("waitInPlace", () => {
  it("sleeps until a turn within its reach, then answers true", async () => {
    const budget = waitInPlace({ cap: 2, maxMs: 200 });
    const started = Date.now();
    expect(await budget.wait(started + 60, Date.now)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
  });

  it("answers false at once for a turn further away than maxMs", async () => {
    const budget = waitInPlace({ cap: 2, maxMs: 200 });
    const started = Date.now();
    expect(await budget.wait(started + 1_000, Date.now)).toBe(false);
    expect(Date.now() - started).toBeLessThan(50);
  });

  it("lets at most `cap` sleep at once, and frees a place when one wakes", async () => {
    const budget = waitInPlace({ cap: 1, maxMs: 200 });
    const first = budget.wait(Date.now() + 80, Date.now);
    expect(await budget.wait(Date.now() + 10, Date.now)).toBe(false);
    expect(await first).toBe(true);
    expect(await budget.wait(Date.now() + 10, Date.now)).toBe(true);
  });

  it("a turn already due takes a place for no time", async () => {
    const budget = waitInPlace({ cap: 1 });
    expect(await budget.wait(Date.now() - 5, Date.now)).toBe(true);
    expect(await budget.wait(Date.now(), Date.now)).toBe(true);
  });
});
