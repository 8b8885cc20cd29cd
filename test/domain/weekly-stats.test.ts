import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyTones, WeekAccumulator, weekStats } from "../../src/domain/weekly-stats.js";
import { thread, WEEK, WINDOW } from "../weekly/week-fixture.js";

const ids = (refs: { id: string }[]) => refs.map((r) => r.id);

describe("weekStats (hand-checked on WEEK)", () => {
  const s = weekStats(WEEK, { weekStart: WINDOW.start });

  it("counts each thread once and sums message counts", () => {
    expect(s.threads).toBe(6); // a b c d e f; the second "b" is a repeat
    expect(s.duplicates).toBe(1);
    expect(s.messages).toBe(10 + 25 + 3 + 25 + 1); // d has no count
    expect(s.threadsWithoutCount).toBe(1);
    expect(s.outside).toBe(0);
  });

  it("reads sentiment tolerantly; absent and unknown values are 'not rated'", () => {
    // a positive; b negative; e "very negative"; d "Mixed"; c absent and f "ecstatic" unrated.
    expect(s.sentiment).toEqual({ positive: 1, neutral: 0, mixed: 1, negative: 2, unknown: 2 });
  });

  it("puts threads in 24-hour days counted from the week's start", () => {
    const day = (i: number) => s.sentimentByDay[i];
    expect(s.sentimentByDay).toHaveLength(7);
    expect(day(0)).toEqual({ ...emptyTones(), positive: 1, negative: 1 }); // a, b (03-03 08:59)
    expect(day(1)).toEqual({ ...emptyTones(), unknown: 1 }); // c (03-03 09:00)
    expect(day(2)).toEqual(emptyTones());
    expect(day(3)).toEqual({ ...emptyTones(), mixed: 1 }); // d
    expect(day(4)).toEqual(emptyTones());
    expect(day(5)).toEqual({ ...emptyTones(), unknown: 1 }); // f (03-08 00:00)
    expect(day(6)).toEqual({ ...emptyTones(), negative: 1 }); // e (03-09 08:59)
    expect(s.threadsByUtcDay).toEqual({
      "2026-03-02": 1,
      "2026-03-03": 2,
      "2026-03-05": 1,
      "2026-03-08": 1,
      "2026-03-09": 1,
    });
  });

  it("counts keywords per thread, case-insensitively", () => {
    // refund: a, b, f; billing: a, d (twice in d, once counted); dark mode: b, e.
    expect(s.keywords).toEqual([
      { keyword: "refund", count: 3 },
      { keyword: "billing", count: 2 },
      { keyword: "dark mode", count: 2 },
    ]);
    expect(s.keywordsApproximate).toBe(false);
  });

  it("counts question-led threads by status and lists the open ones, quiet longest first", () => {
    expect(s.questions).toEqual({ total: 4, answered: 1, partial: 1, unanswered: 1, pending: 1, unknown: 0 });
    expect(ids(s.awaitingAnswer)).toEqual(["b", "d", "e"]);
  });

  it("ranks the most active threads by messages, ties by latest activity", () => {
    expect(ids(s.mostActive)).toEqual(["e", "b", "a", "c", "f", "d"]);
    expect(s.mostActive[0]).toMatchObject({ title: "App crashes on launch", messageCount: 25 });
  });

  it("keeps only `topN` threads in its lists", () => {
    const small = weekStats(WEEK, { weekStart: WINDOW.start, topN: 2 });
    expect(ids(small.mostActive)).toEqual(["e", "b"]);
    expect(ids(small.awaitingAnswer)).toEqual(["b", "d"]);
  });

  it("does not depend on the order pages arrive in", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(WEEK, { minLength: WEEK.length }), (order) => {
        expect(weekStats(order, { weekStart: WINDOW.start })).toEqual(s);
      }),
      { numRuns: 50 },
    );
  });
});

describe("WeekAccumulator with a date filter (the week before, read from last30Days)", () => {
  it("keeps only threads whose last activity is in [from, to)", () => {
    const acc = new WeekAccumulator({
      weekStart: WINDOW.prevStart,
      filter: { from: WINDOW.prevStart, to: WINDOW.start },
    });
    const added = [
      thread({ id: "old", lastMessageDate: "2026-02-23T08:59:59.999Z", sentiment: "positive" }), // before
      thread({
        id: "p1",
        lastMessageDate: "2026-02-23T09:00:00.000Z",
        sentiment: "positive",
        messageCount: 4,
      }),
      thread({
        id: "p2",
        lastMessageDate: "2026-03-02T08:59:59.999Z",
        sentiment: "neutral",
        messageCount: 6,
      }),
      thread({ id: "now", lastMessageDate: "2026-03-02T09:00:00.000Z", sentiment: "negative" }), // this week
      thread({ id: "nodate", sentiment: "negative" }),
    ].map((t) => acc.add(t));
    expect(added).toEqual([false, true, true, false, false]);
    const r = acc.result();
    expect(r.threads).toBe(2);
    expect(r.messages).toBe(10);
    expect(r.outside).toBe(3);
    expect(r.sentiment).toEqual({ ...emptyTones(), positive: 1, neutral: 1 });
    expect(r.sentimentByDay[0]).toEqual({ ...emptyTones(), positive: 1 });
    expect(r.sentimentByDay[6]).toEqual({ ...emptyTones(), neutral: 1 });
  });

  it("without a filter, a thread a little outside the window goes to the edge day", () => {
    const r = weekStats(
      [
        thread({ id: "early", lastMessageDate: "2026-03-02T08:00:00.000Z", sentiment: "positive" }),
        thread({ id: "late", lastMessageDate: "2026-03-09T09:30:00.000Z", sentiment: "negative" }),
      ],
      { weekStart: WINDOW.start },
    );
    expect(r.sentimentByDay[0]?.positive).toBe(1);
    expect(r.sentimentByDay[6]?.negative).toBe(1);
  });
});
