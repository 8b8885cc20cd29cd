import { describe, expect, it } from "vitest";
import { KeywordCounter } from "../../src/domain/weekly-keywords.js";
import { TopN } from "../../src/domain/weekly-top.js";

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

describe("weekly keywords are recurring themes", () => {
  it("never a control sequence or mention; only keywords of two threads or more", async () => {
    const { weekStats } = await import("../../src/domain/weekly-stats.js");
    const { thread, WINDOW } = await import("../weekly/week-fixture.js");
    const at = "2026-03-03T10:00:00.000Z";
    const stats = weekStats(
      [
        thread({ id: "1", lastMessageDate: at, keywords: ["<!channel>", "refund", "@here", "<@U123>"] }),
        thread({ id: "2", lastMessageDate: at, keywords: ["<!channel>", "Refund", "login"] }),
        thread({ id: "3", lastMessageDate: at, keywords: ["billing", "<#C1|general>"] }),
      ],
      { dayStarts: WINDOW.dayStarts },
    );
    expect(stats.keywords).toEqual([{ keyword: "refund", count: 2 }]);
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
