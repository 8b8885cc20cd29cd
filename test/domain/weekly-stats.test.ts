import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyTones, WeekAccumulator, weekStats } from "../../src/domain/weekly-stats.js";
import { thread, WEEK, WINDOW } from "../weekly/week-fixture.js";

const ids = (refs: { id: string }[]) => refs.map((r) => r.id);

describe("weekStats (hand-checked on WEEK)", () => {
  const s = weekStats(WEEK, { dayStarts: WINDOW.dayStarts });

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

  it("puts threads in the calendar day of their last activity", () => {
    const day = (i: number) => s.sentimentByDay[i];
    expect(s.sentimentByDay).toHaveLength(7);
    expect(day(0)).toEqual({ ...emptyTones(), positive: 1 }); // a
    expect(day(1)).toEqual({ ...emptyTones(), negative: 1, unknown: 1 }); // b (03-03 08:59), c (09:00)
    expect(day(2)).toEqual(emptyTones());
    expect(day(3)).toEqual({ ...emptyTones(), mixed: 1 }); // d
    expect(day(4)).toEqual(emptyTones());
    expect(day(5)).toEqual(emptyTones());
    expect(day(6)).toEqual({ ...emptyTones(), negative: 1, unknown: 1 }); // f (03-08 00:00), e (23:59)
    expect(s.threadsByDay).toEqual([1, 2, 0, 1, 0, 0, 2]);
    // One pass: the days add up to the week's threads, and to its tones.
    expect(s.threadsByDay.reduce((a, b) => a + b, 0)).toBe(s.threads);
    expect(Object.values(s.sentiment).reduce((a, b) => a + b, 0)).toBe(s.threads);
  });

  it("keeps the ids counted and the open questions' ids, for per-channel lookups", () => {
    expect([...s.threadIds].sort()).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect([...s.openQuestionIds].sort()).toEqual(["b", "d", "e"]);
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
    const small = weekStats(WEEK, { dayStarts: WINDOW.dayStarts, topN: 2, awaitingKept: 2 });
    expect(ids(small.mostActive)).toEqual(["e", "b"]);
    expect(ids(small.awaitingAnswer)).toEqual(["b", "d"]);
  });

  it("does not depend on the order pages arrive in", () => {
    fc.assert(
      fc.property(fc.shuffledSubarray(WEEK, { minLength: WEEK.length }), (order) => {
        expect(weekStats(order, { dayStarts: WINDOW.dayStarts })).toEqual(s);
      }),
      { numRuns: 50 },
    );
  });
});

describe("WeekAccumulator keeps to its week's days", () => {
  it("the week before: only threads whose last activity is in its seven days", () => {
    const acc = new WeekAccumulator({ dayStarts: WINDOW.prevDayStarts });
    const added = [
      thread({ id: "old", lastMessageDate: "2026-02-22T23:59:59.999Z", sentiment: "positive" }), // before
      thread({
        id: "p1",
        lastMessageDate: "2026-02-23T00:00:00.000Z",
        sentiment: "positive",
        messageCount: 4,
      }),
      thread({
        id: "p2",
        lastMessageDate: "2026-03-01T23:59:59.999Z",
        sentiment: "neutral",
        messageCount: 6,
      }),
      thread({ id: "now", lastMessageDate: "2026-03-02T00:00:00.000Z", sentiment: "negative" }), // this week
      thread({ id: "nodate", sentiment: "negative" }),
    ].map((t) => acc.add(t));
    expect(added).toEqual([false, true, true, false, false]);
    const r = acc.result();
    expect(r.threads).toBe(2);
    expect(r.messages).toBe(10);
    expect(r.outside).toBe(2);
    expect(r.undated).toBe(1);
    expect(r.sentiment).toEqual({ ...emptyTones(), positive: 1, neutral: 1 });
    expect(r.sentimentByDay[0]).toEqual({ ...emptyTones(), positive: 1 });
    expect(r.sentimentByDay[6]).toEqual({ ...emptyTones(), neutral: 1 });
  });

  it("a thread active on the run day belongs to next week's summary, not this one", () => {
    const r = weekStats(
      [
        thread({ id: "today", lastMessageDate: "2026-03-09T00:00:00.000Z", sentiment: "positive" }),
        thread({ id: "sunday", lastMessageDate: "2026-03-08T23:59:59.999Z", sentiment: "negative" }),
      ],
      { dayStarts: WINDOW.dayStarts },
    );
    expect(r.threads).toBe(1);
    expect(r.outside).toBe(1);
    expect(r.sentimentByDay[6]?.negative).toBe(1);
  });
});
