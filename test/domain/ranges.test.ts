import { describe, expect, it } from "vitest";
import { parseRange, takeRange } from "../../src/domain/ranges.js";

describe("ranges people type", () => {
  it.each([
    ["last 30 days", "last30Days"],
    ["last30Days", "last30Days"],
    ["LAST30DAYS", "last30Days"],
    ["past 30 days", "last30Days"],
    ["30d", "last30Days"],
    ["7d", "last7Days"],
    ["last 7 days", "last7Days"],
    ["week", "last7Days"],
    ["3m", "last3Months"],
    ["last 3 months", "last3Months"],
    ["6m", "last6Months"],
    ["last_6_months", "last6Months"],
    ["all", "allTime"],
    ["allTime", "allTime"],
    ["all time", "allTime"],
    ["14d", undefined],
    ["support", undefined],
  ])("%j -> %s", (text, range) => {
    expect(parseRange(text)).toBe(range);
  });

  it("takes a range of up to three words at the start, or at the end after a group", () => {
    expect(takeRange(["last", "30", "days", "Lumen", "DB"])).toEqual({
      kind: "range",
      range: "last30Days",
      rest: ["Lumen", "DB"],
    });
    expect(takeRange(["Lumen", "DB", "Support", "30d"])).toEqual({
      kind: "range",
      range: "last30Days",
      rest: ["Lumen", "DB", "Support"],
    });
    expect(takeRange(["Lumen", "DB", "last", "6", "months"])).toMatchObject({
      range: "last6Months",
      rest: ["Lumen", "DB"],
    });
    expect(takeRange(["Lumen", "DB"])).toEqual({ kind: "none", rest: ["Lumen", "DB"] });
    expect(takeRange([])).toEqual({ kind: "none", rest: [] });
  });

  it("a word that looks like a period but is none is reported, not taken for a group", () => {
    expect(takeRange(["14d", "support"])).toEqual({ kind: "bad", words: "14d", rest: ["support"] });
    expect(takeRange(["last2Weeks"])).toEqual({ kind: "bad", words: "last2Weeks", rest: [] });
    expect(takeRange(["last", "2", "weeks", "support"])).toEqual({
      kind: "bad",
      words: "last 2 weeks",
      rest: ["support"],
    });
  });

  it("after the group too: `Lumen DB Support 2w` is a group and a period that is none", () => {
    expect(takeRange(["Lumen", "DB", "Support", "2w"])).toEqual({
      kind: "bad",
      words: "2w",
      rest: ["Lumen", "DB", "Support"],
    });
    // A group's own last word is never taken for a period unless it looks like one.
    expect(takeRange(["Team", "Ops"])).toEqual({ kind: "none", rest: ["Team", "Ops"] });
  });
});
