import { describe, expect, it } from "vitest";
import { busiestDays, topDays } from "../../src/domain/weekly-days.js";

describe("topDays", () => {
  it("highest first, ties by the earlier day, zeros left out", () => {
    expect(
      topDays({ "2026-03-02": 5, "2026-03-03": 9, "2026-03-04": 5, "2026-03-05": 0, "2026-03-06": 1 }, 3),
    ).toEqual([
      { day: "2026-03-03", count: 9 },
      { day: "2026-03-02", count: 5 },
      { day: "2026-03-04", count: 5 },
    ]);
    expect(topDays({ "2026-03-02": 0 })).toEqual([]);
  });
});

describe("busiestDays", () => {
  it("uses message activity when any was recorded", () => {
    const b = busiestDays({ "2026-03-02": 40, "2026-03-03": 120, "2026-03-04": 0 }, { "2026-03-04": 7 });
    expect(b).toEqual({
      source: "messages",
      days: [
        { day: "2026-03-03", count: 120 },
        { day: "2026-03-02", count: 40 },
      ],
      total: 160,
    });
  });

  it("falls back to threads by last activity when no message was recorded", () => {
    const b = busiestDays({ "2026-03-02": 0, "2026-03-03": 0 }, { "2026-03-02": 2, "2026-03-05": 3 }, 1);
    expect(b).toEqual({ source: "threads", days: [{ day: "2026-03-05", count: 3 }], total: 5 });
  });

  it("nothing at all: no days", () => {
    expect(busiestDays({}, {})).toEqual({ source: "threads", days: [], total: 0 });
  });
});
