import { describe, expect, it } from "vitest";
import { KeywordCounter } from "../../src/domain/weekly-keywords.js";
import { TopN } from "../../src/domain/weekly-top.js";
import {
  dayIndex,
  dayLabels,
  describeRange,
  utcDaysCovering,
  weekWindow,
} from "../../src/domain/weekly-window.js";

describe("KeywordCounter", () => {
  it("counts threads per keyword, case and spacing folded; the spelling shown does not depend on order", () => {
    const k = new KeywordCounter();
    k.addThread(["Dark  mode", "dark mode", "refund"]);
    k.addThread(["DARK MODE", " "]);
    k.addThread(["Refund", "billing"]);
    expect(k.top(10)).toEqual([
      { keyword: "dark mode", count: 2 },
      { keyword: "refund", count: 2 },
      { keyword: "billing", count: 1 },
    ]);
    expect(k.top(1)).toEqual([{ keyword: "dark mode", count: 2 }]);
    // Fewest capitals, then code point order: "EU" stays "EU" unless someone wrote "eu".
    const k2 = new KeywordCounter();
    k2.addThread(["EU"]);
    k2.addThread(["Eu"]);
    expect(k2.top(1)).toEqual([{ keyword: "Eu", count: 2 }]);
  });

  it("stays within twice its capacity and keeps the frequent keywords", () => {
    const k = new KeywordCounter(10);
    // "hot" is in every thread; each thread also brings two keywords never seen again.
    for (let i = 0; i < 1_000; i++) k.addThread(["hot", `rare-${i}-a`, `rare-${i}-b`]);
    expect(k.size).toBeLessThanOrEqual(20);
    expect(k.approximate).toBe(true);
    const [top] = k.top(1);
    expect(top?.keyword).toBe("hot");
    // A lower bound: pruning subtracts, never adds.
    expect(top?.count).toBeGreaterThan(0);
    expect(top?.count).toBeLessThanOrEqual(1_000);
  });
});

describe("TopN", () => {
  it("keeps the best `limit` items in order, whatever the arrival order", () => {
    const t = new TopN<number>(3, (a, b) => a > b);
    for (const n of [5, 1, 9, 3, 7, 9, 2]) t.offer(n);
    expect(t.items()).toEqual([9, 9, 7]);
    const none = new TopN<number>(0, (a, b) => a > b);
    none.offer(1);
    expect(none.items()).toEqual([]);
  });
});

describe("week window", () => {
  const w = weekWindow(Date.parse("2026-03-09T09:00:00.000Z"));

  it("is seven 24-hour days back from the run, and seven more before", () => {
    expect(new Date(w.start).toISOString()).toBe("2026-03-02T09:00:00.000Z");
    expect(new Date(w.prevStart).toISOString()).toBe("2026-02-23T09:00:00.000Z");
    expect(dayIndex(w.start, w.start)).toBe(0);
    expect(dayIndex(Date.parse("2026-03-03T08:59:59.999Z"), w.start)).toBe(0);
    expect(dayIndex(Date.parse("2026-03-03T09:00:00.000Z"), w.start)).toBe(1);
    expect(dayIndex(w.end - 1, w.start)).toBe(6);
    expect(dayIndex(w.end, w.start)).toBeUndefined();
    expect(dayIndex(w.start - 1, w.start)).toBeUndefined();
  });

  it("covers the UTC days the week touches (eight when it starts mid-day)", () => {
    expect(utcDaysCovering(w.start, w.end)).toEqual([
      "2026-03-02",
      "2026-03-03",
      "2026-03-04",
      "2026-03-05",
      "2026-03-06",
      "2026-03-07",
      "2026-03-08",
      "2026-03-09",
    ]);
    const midnight = weekWindow(Date.parse("2026-03-09T00:00:00.000Z"));
    expect(utcDaysCovering(midnight.start, midnight.end)).toHaveLength(7);
  });

  it("labels each day in the schedule's zone, at its middle", () => {
    expect(dayLabels(w.start, "UTC")).toEqual([
      "Mon 2",
      "Tue 3",
      "Wed 4",
      "Thu 5",
      "Fri 6",
      "Sat 7",
      "Sun 8",
    ]);
    // In Tokyo (UTC+9) the days run 18:00 -> 18:00 local; their middles fall on Tuesday on.
    expect(dayLabels(w.start, "Asia/Tokyo")[0]).toBe("Tue 3");
    expect(describeRange(w.start, w.end, "UTC")).toBe("Mar 2 – Mar 9, 2026");
  });
});
