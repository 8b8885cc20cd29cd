import { describe, expect, it } from "vitest";
import { busiestDays } from "../../src/domain/weekly-days.js";

const DAYS = [
  "2026-03-02",
  "2026-03-03",
  "2026-03-04",
  "2026-03-05",
  "2026-03-06",
  "2026-03-07",
  "2026-03-08",
];

describe("busiestDays", () => {
  it("highest first, ties by the earlier day, zeros left out", () => {
    expect(busiestDays(DAYS, [5, 9, 5, 0, 1, 0, 0], 3)).toEqual([
      { day: "2026-03-03", count: 9 },
      { day: "2026-03-02", count: 5 },
      { day: "2026-03-04", count: 5 },
    ]);
    expect(busiestDays(DAYS, [0, 0, 0, 0, 0, 0, 0])).toEqual([]);
  });

  it("reads exactly the per-day counts it is given (the chart's)", () => {
    expect(busiestDays(DAYS, [0, 0, 0, 0, 0, 0, 4], 1)).toEqual([{ day: "2026-03-08", count: 4 }]);
  });
});
