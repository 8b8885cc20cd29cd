import { describe, expect, it } from "vitest";
import { InsightError } from "../../src/insight/errors.js";
import { checkId, checkListParams, listQuery, searchQuery, withQuery } from "../../src/insight/params.js";
import { RANGES, SORTS, type Range, type Sort } from "../../src/insight/schemas.js";

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof InsightError ? e.code : `not an InsightError: ${String(e)}`;
  }
  return undefined;
}

describe("checkListParams", () => {
  it("accepts every range, both sorts, limits 1..100 and pages from 1", () => {
    for (const range of RANGES) expect(codeOf(() => checkListParams({ range }))).toBeUndefined();
    for (const sort of SORTS) expect(codeOf(() => checkListParams({ sort }))).toBeUndefined();
    for (const limit of [1, 50, 100]) expect(codeOf(() => checkListParams({ limit }))).toBeUndefined();
    for (const page of [1, 2, 9999]) expect(codeOf(() => checkListParams({ page }))).toBeUndefined();
  });

  it.each([
    [{ limit: 0 }],
    [{ limit: 101 }],
    [{ limit: 1.5 }],
    [{ limit: Number.NaN }],
    [{ page: 0 }],
    [{ page: -1 }],
    [{ page: 2.5 }],
    [{ range: "last90Days" as Range }],
    [{ range: "alltime" as Range }],
    [{ sort: "DESC" as Sort }],
    [{ sort: "newest" as Sort }],
  ])("rejects %j with invalid_params", (p) => {
    expect(codeOf(() => checkListParams(p))).toBe("invalid_params");
  });

  it("names the parameter and the allowed values in the message", () => {
    expect(() => checkListParams({ range: "lastWeek" as Range })).toThrow(
      /range must be one of last7Days, .*allTime/,
    );
    expect(() => checkListParams({ limit: 500 })).toThrow(/limit must be .* 1 to 100 \(got 500\)/);
  });
});

describe("queries", () => {
  it("lists the common parameters in a fixed order and leaves unset ones out", () => {
    expect(listQuery({ sort: "desc", page: 2, range: "last30Days", limit: 100 })).toEqual([
      ["page", "2"],
      ["limit", "100"],
      ["range", "last30Days"],
      ["sort", "desc"],
    ]);
    expect(listQuery({}, { chatThreadId: undefined })).toEqual([]);
    expect(listQuery({ page: 1 }, { chatThreadId: "t 1" })).toEqual([
      ["page", "1"],
      ["chatThreadId", "t 1"],
    ]);
  });

  it("puts the search text under the configured name and refuses extras that would replace it", () => {
    expect(searchQuery("q", "refund & billing", { limit: 5, extra: { type: "thread" } })).toEqual([
      ["q", "refund & billing"],
      ["limit", "5"],
      ["type", "thread"],
    ]);
    expect(codeOf(() => searchQuery("q", "x", { extra: { q: "other" } }))).toBe("invalid_params");
    expect(codeOf(() => searchQuery("q", "x", { extra: { page: "3" } }))).toBe("invalid_params");
    expect(codeOf(() => searchQuery("q", "   ", {}))).toBe("invalid_params");
    expect(codeOf(() => searchQuery("q", "x", { limit: 101 }))).toBe("invalid_params");
  });

  it("percent-encodes names and values", () => {
    expect(withQuery("/p", [["query", "a&b=c d/é"]])).toBe("/p?query=a%26b%3Dc+d%2F%C3%A9");
    expect(withQuery("/p", [])).toBe("/p");
  });

  it("rejects empty identifiers", () => {
    expect(codeOf(() => checkId("chatgroupId", ""))).toBe("invalid_params");
    expect(codeOf(() => checkId("chatgroupId", " "))).toBe("invalid_params");
    expect(checkId("chatgroupId", "g/1")).toBe("g/1");
  });
});
