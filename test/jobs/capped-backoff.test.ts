import { describe, expect, it } from "vitest";
import { cappedBackoff, JOB_DEFAULTS } from "../../src/jobs/retry-policy.js";

describe("cappedBackoff", () => {
  it("doubles from 2 s and stops at 5 min, jitter within ±25%", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 8, 9, 10, 40].map((n) => cappedBackoff(n, mid))).toEqual([
      2_000, 4_000, 8_000, 16_000, 256_000, 300_000, 300_000, 300_000,
    ]);
    expect(cappedBackoff(1, () => 0)).toBe(1_500);
    expect(cappedBackoff(20, () => 1)).toBe(375_000);
  });

  it("the Slack queue's attempts outlast 2.5 hours of failures even with the least jitter (3.5 h typical)", () => {
    const attempts = JOB_DEFAULTS.slack.attempts ?? 1;
    let waited = 0;
    for (let n = 1; n < attempts; n++) waited += cappedBackoff(n, () => 0);
    expect(waited).toBeGreaterThan(2.5 * 3_600_000);
  });
});
