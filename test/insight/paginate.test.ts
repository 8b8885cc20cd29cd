import { describe, expect, it } from "vitest";
import { isLastPage, walkPages, type WalkStop } from "../../src/insight/paginate.js";
import type { Page } from "../../src/insight/schemas.js";

type Item = { id: string };
const items = (from: number, n: number): Item[] =>
  Array.from({ length: n }, (_, i) => ({ id: `t${from + i}` }));
const pg = (data: Item[], pagination?: { page: number; totalPages: number }, dropped = 0): Page<Item> => ({
  data,
  dropped,
  pagination: pagination && { ...pagination, limit: 100, total: pagination.totalPages * 100 },
});

async function collect(fetchPage: (n: number, limit: number) => Promise<Page<Item>>, maxPages?: number) {
  const asked: number[] = [];
  const stops: WalkStop[] = [];
  const pages: Page<Item>[] = [];
  const walk = walkPages(
    (n, limit) => {
      asked.push(n);
      return fetchPage(n, limit);
    },
    { onStop: (why) => stops.push(why), ...(maxPages ? { maxPages } : {}) },
  );
  for await (const p of walk) pages.push(p);
  return { asked, stops, pages };
}

describe("isLastPage", () => {
  it("follows totalPages when present", () => {
    expect(isLastPage(pg(items(0, 100), { page: 1, totalPages: 3 }), 1, 100)).toBe(false);
    expect(isLastPage(pg(items(0, 100), { page: 3, totalPages: 3 }), 3, 100)).toBe(true);
  });
  it("without pagination, ends at the first short page; dropped items count as sent", () => {
    expect(isLastPage(pg(items(0, 100)), 1, 100)).toBe(false);
    expect(isLastPage(pg(items(0, 99)), 1, 100)).toBe(true);
    expect(isLastPage(pg(items(0, 98), undefined, 2), 1, 100)).toBe(false);
    expect(isLastPage(pg([]), 1, 100)).toBe(true);
  });
});

describe("walkPages", () => {
  it("asks for pages 1..totalPages at limit 100", async () => {
    const r = await collect(async (n, limit) => {
      expect(limit).toBe(100);
      return pg(items((n - 1) * 100, n < 3 ? 100 : 7), { page: n, totalPages: 3 });
    });
    expect(r.asked).toEqual([1, 2, 3]);
    expect(r.pages.flatMap((p) => p.data).length).toBe(207);
  });

  it("without pagination, stops after the first short page", async () => {
    const r = await collect(async (n) => pg(items((n - 1) * 100, n === 4 ? 1 : 100)));
    expect(r.asked).toEqual([1, 2, 3, 4]);
  });

  it("stops on an empty page and yields nothing for it", async () => {
    const r = await collect(async (n) => pg(n === 1 ? items(0, 100) : [], { page: n, totalPages: 50 }));
    expect(r.asked).toEqual([1, 2]);
    expect(r.pages.length).toBe(1);
  });

  it("stops when the service answers the same page again", async () => {
    const r = await collect(async () => pg(items(0, 100)));
    expect(r.asked).toEqual([1, 2]);
    expect(r.stops).toEqual(["repeated_page"]);
  });

  it("stops at the page cap however many pages the service claims", async () => {
    const r = await collect(async (n) => pg(items(n * 100, 100), { page: n, totalPages: 1e9 }), 5);
    expect(r.asked).toEqual([1, 2, 3, 4, 5]);
    expect(r.stops).toEqual(["page_cap"]);
  });
});
