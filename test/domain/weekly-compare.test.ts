import { describe, expect, it } from "vitest";
import { percentChange, sentimentChange } from "../../src/domain/weekly-compare.js";
import { emptyTones } from "../../src/domain/weekly-stats.js";

describe("sentimentChange", () => {
  it("shares are of rated threads; deltas are percentage points against the week before", () => {
    // This week: 6 positive, 2 neutral, 0 mixed, 2 negative (10 rated) and 5 not rated.
    // Week before: 2 positive, 2 neutral, 1 mixed, 5 negative (10 rated).
    const c = sentimentChange(
      { positive: 6, neutral: 2, mixed: 0, negative: 2, unknown: 5 },
      { positive: 2, neutral: 2, mixed: 1, negative: 5, unknown: 0 },
    );
    expect(c.rated).toBe(10);
    expect(c.unrated).toBe(5);
    expect(c.previousRated).toBe(10);
    expect(c.tones.map((t) => [t.tone, t.count, t.share, t.previousCount, t.deltaPoints])).toEqual([
      ["positive", 6, 0.6, 2, 40],
      ["neutral", 2, 0.2, 2, 0],
      ["mixed", 0, 0, 1, -10],
      ["negative", 2, 0.2, 5, -30],
    ]);
  });

  it("rounds deltas to one decimal", () => {
    // 1/3 positive now, 1/2 before: -16.666… -> -16.7 points.
    const c = sentimentChange(
      { ...emptyTones(), positive: 1, negative: 2 },
      { ...emptyTones(), positive: 1, negative: 1 },
    );
    expect(c.tones.find((t) => t.tone === "positive")?.deltaPoints).toBe(-16.7);
    expect(c.tones.find((t) => t.tone === "negative")?.deltaPoints).toBe(16.7);
  });

  it("gives no deltas without a base: the week before unknown, or with nothing rated", () => {
    const unknown = sentimentChange({ ...emptyTones(), positive: 3 }, undefined);
    expect(unknown.previousRated).toBeUndefined();
    expect(unknown.tones.every((t) => t.deltaPoints === undefined && t.previousCount === undefined)).toBe(
      true,
    );
    expect(unknown.tones[0]).toMatchObject({ tone: "positive", share: 1 });

    const unrated = sentimentChange({ ...emptyTones(), negative: 1 }, { ...emptyTones(), unknown: 4 });
    expect(unrated.previousRated).toBe(0);
    expect(unrated.tones.every((t) => t.deltaPoints === undefined)).toBe(true);
    expect(unrated.tones.find((t) => t.tone === "negative")?.previousCount).toBe(0);
  });

  it("a week with nothing rated has zero shares, not NaN", () => {
    const c = sentimentChange({ ...emptyTones(), unknown: 2 }, { ...emptyTones(), positive: 1 });
    expect(c.rated).toBe(0);
    expect(c.tones.map((t) => t.share)).toEqual([0, 0, 0, 0]);
    expect(c.tones[0]?.deltaPoints).toBe(-100);
  });
});

describe("percentChange", () => {
  it.each<[number, number | undefined, number | undefined]>([
    [12, 10, 20],
    [5, 10, -50],
    [10, 10, 0],
    [1, 3, -67],
    [4, 0, undefined],
    [4, undefined, undefined],
  ])("%i against %s -> %s", (current, previous, expected) => {
    expect(percentChange(current, previous)).toBe(expected);
  });
});
