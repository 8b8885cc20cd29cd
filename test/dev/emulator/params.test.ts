import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pagination, parseListParams, rangeStart } from "../../../dev/emulator/params.js";
import { SortedIndex } from "../../../dev/emulator/sorted-index.js";

/* Pure parts: query parameter validation, range starts, pagination math and the sorted index. */

const q = (s: string) => new URLSearchParams(s);

describe("parseListParams", () => {
  it("defaults to page 1, limit 50, desc, allTime", () => {
    expect(parseListParams(q(""))).toEqual({
      ok: true,
      value: { page: 1, limit: 50, sort: "desc", range: "allTime" },
    });
  });

  it("accepts the allowed values", () => {
    expect(parseListParams(q("page=3&limit=100&sort=asc&range=last3Months"))).toEqual({
      ok: true,
      value: { page: 3, limit: 100, sort: "asc", range: "last3Months" },
    });
  });

  it.each(["page=0", "page=+1", "page=1e2", "limit=101", "limit=0", "limit=-5", "sort=", "range=last1Days"])(
    "rejects %s with a message naming the parameter",
    (s) => {
      const r = parseListParams(q(s));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toContain(s.split("=")[0]);
    },
  );

  it("ignores range where it is not honoured", () => {
    expect(parseListParams(q("range=bogus"), { withRange: false }).ok).toBe(true);
  });
});

describe("rangeStart", () => {
  const now = new Date("2026-05-31T10:00:00.000Z");
  it("counts days as 24-hour periods and months as calendar months (UTC)", () => {
    expect(new Date(rangeStart("last7Days", now) ?? 0).toISOString()).toBe("2026-05-24T10:00:00.000Z");
    expect(new Date(rangeStart("last30Days", now) ?? 0).toISOString()).toBe("2026-05-01T10:00:00.000Z");
    // 31 February does not exist: the start clamps to the month's last day.
    expect(new Date(rangeStart("last3Months", now) ?? 0).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(new Date(rangeStart("last6Months", now) ?? 0).toISOString()).toBe("2025-11-30T10:00:00.000Z");
    const mid = new Date("2026-03-15T12:00:00.000Z");
    expect(new Date(rangeStart("last3Months", mid) ?? 0).toISOString()).toBe("2025-12-15T12:00:00.000Z");
    expect(rangeStart("allTime", now)).toBeUndefined();
  });
});

describe("pagination", () => {
  it("rounds totalPages up and gives 0 pages for nothing", () => {
    expect(pagination(1, 50, 125)).toEqual({ page: 1, limit: 50, total: 125, totalPages: 3 });
    expect(pagination(2, 50, 100)).toEqual({ page: 2, limit: 50, total: 100, totalPages: 2 });
    expect(pagination(1, 50, 0)).toEqual({ page: 1, limit: 50, total: 0, totalPages: 0 });
  });
});

describe("SortedIndex", () => {
  const item = (id: string, ms: number) => ({ id, at: new Date(ms).toISOString() });

  it("matches a naive filter-sort-slice for any data, cut-off, order and page", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), ms: fc.integer({ min: 0, max: 50 }) }),
          {
            selector: (x) => x.id,
            maxLength: 40,
          },
        ),
        fc.option(fc.integer({ min: -5, max: 55 }), { nil: undefined }),
        fc.constantFrom("asc" as const, "desc" as const),
        fc.integer({ min: 0, max: 45 }),
        fc.integer({ min: 1, max: 12 }),
        (rows, from, sort, offset, limit) => {
          const index = new SortedIndex<{ id: string; at: string }>((x) => x.at);
          for (const r of rows) index.set(item(r.id, r.ms));
          const cmp = (a: string | number, b: string | number) => (a === b ? 0 : a < b ? 1 : -1);
          const desc = rows
            .filter((r) => from === undefined || r.ms >= from)
            .sort((a, b) => cmp(a.ms, b.ms) || cmp(a.id, b.id))
            .map((r) => r.id);
          const ordered = sort === "desc" ? desc : [...desc].reverse();
          const w = index.window(from, sort, offset, limit);
          expect(w.total).toBe(desc.length);
          expect(w.data.map((x) => x.id)).toEqual(ordered.slice(offset, offset + limit));
        },
      ),
    );
  });

  it("re-sorts after a replacement", () => {
    const index = new SortedIndex<{ id: string; at: string }>((x) => x.at);
    index.set(item("a", 1));
    index.set(item("b", 2));
    expect(index.all().map((x) => x.id)).toEqual(["b", "a"]);
    index.set(item("a", 3));
    expect(index.all().map((x) => x.id)).toEqual(["a", "b"]);
    expect(index.size).toBe(2);
  });
});
