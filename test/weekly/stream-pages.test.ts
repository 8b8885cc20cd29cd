import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { InsightClient } from "../../src/insight/client.js";
import { isInsightError } from "../../src/insight/errors.js";
import type { Page, Thread } from "../../src/insight/schemas.js";
import { WeekAccumulator } from "../../src/domain/weekly-stats.js";
import { weekWindow } from "../../src/domain/weekly-window.js";
import { readPreviousWeek } from "../../src/weekly/previous-week.js";
import { streamPages, type FetchPage } from "../../src/weekly/stream-pages.js";

const NOW = new Date("2026-03-09T09:00:00.000Z");
const DAY_MS = 86_400_000;
const WINDOW = weekWindow(NOW);

describe("streaming a listing with bounded concurrency (emulator over HTTP)", () => {
  let em: Emulator;
  let client: InsightClient;
  let week: string; // 1,234 threads in the last 7 days
  let layered: string; // 2,000 this week, 300 the week before, 500 older (within 30 days)
  const prevWeekIds = new Set<string>();

  beforeAll(async () => {
    em = await startEmulator({ now: () => NOW, seeded: false });
    client = new InsightClient({
      baseUrl: em.baseUrl,
      apiKey: em.apiKey,
      retry: { maxAttempts: 1 },
      connections: 8,
    });
    const c = em.store.addCommunity();
    week = em.store.addGroup(c._id)._id;
    em.store.addThreads(week, 1_234, { withinDays: 7 });
    layered = em.store.addGroup(c._id)._id;
    em.store.addThreads(layered, 2_000, { withinDays: 7 });
    for (let i = 0; i < 300; i++) {
      const t = em.store.addThread(layered, {
        lastMessageDate: new Date(WINDOW.start - 1 - Math.floor((i * 7 * DAY_MS) / 300)).toISOString(),
      });
      prevWeekIds.add(t.id);
    }
    for (let i = 0; i < 500; i++) {
      em.store.addThread(layered, {
        lastMessageDate: new Date(WINDOW.prevStart - 1 - Math.floor((i * 15 * DAY_MS) / 500)).toISOString(),
      });
    }
  });
  afterAll(async () => {
    await client?.close();
    await em?.close();
  });

  /** A FetchPage over the real client that counts requests in flight. */
  function counted(groupId: string, range: "last7Days" | "last30Days", sort: "asc" | "desc" = "desc") {
    const stats = { inFlight: 0, maxInFlight: 0, calls: [] as number[] };
    const fetchPage: FetchPage<Thread> = async (page, limit, signal) => {
      stats.calls.push(page);
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      try {
        return await client.listThreads(groupId, { range, sort, page, limit }, { signal });
      } finally {
        stats.inFlight--;
      }
    };
    return { fetchPage, stats };
  }

  it("reads every page once, never more than `concurrency` at a time", async () => {
    em.faults.set({ latencyMs: 15 });
    const { fetchPage, stats } = counted(week, "last7Days");
    const seen = new Map<string, number>();
    const r = await streamPages(
      fetchPage,
      (p) => {
        for (const t of p.data) seen.set(t.id, (seen.get(t.id) ?? 0) + 1);
      },
      { concurrency: 3 },
    );
    em.faults.clear();
    expect(r).toEqual({ pages: 13, items: 1_234, total: 1_234 });
    expect(seen.size).toBe(1_234);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(stats.calls.sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(stats.maxInFlight).toBeLessThanOrEqual(3);
    expect(stats.maxInFlight).toBeGreaterThan(1);
  });

  it("follows a listing that grew while it was read to its new end", async () => {
    const c = em.store.addCommunity();
    const g = em.store.addGroup(c._id)._id;
    const original = new Set(em.store.addThreads(g, 450, { withinDays: 7 }).map((t) => t.id));
    const { fetchPage } = counted(g, "last7Days");
    let grown = false;
    const growing: FetchPage<Thread> = async (page, limit, signal) => {
      const p = await fetchPage(page, limit, signal);
      // After page 1, 150 newer threads arrive: everything shifts 150 places down.
      if (!grown) {
        grown = true;
        for (let i = 0; i < 150; i++) em.store.addThread(g, { lastMessageDate: NOW.toISOString() });
      }
      return p;
    };
    const seen = new Set<string>();
    const r = await streamPages(growing, (p) => p.data.forEach((t) => seen.add(t.id)), { concurrency: 2 });
    expect([...original].every((id) => seen.has(id))).toBe(true);
    expect(r.pages).toBeGreaterThan(5); // 5 pages were announced; the walk went on to the end
  });

  it("without pagination, walks page by page until a short page", async () => {
    const { fetchPage, stats } = counted(week, "last7Days");
    const bare: FetchPage<Thread> = async (...a) => ({ ...(await fetchPage(...a)), pagination: undefined });
    let items = 0;
    const r = await streamPages(bare, (p: Page<Thread>) => (items += p.data.length), { concurrency: 4 });
    expect(items).toBe(1_234);
    expect(r.total).toBeUndefined();
    expect(stats.maxInFlight).toBe(1);
  });

  it("a failing page fails the stream with the Insight error", async () => {
    em.faults.set({ serverError: { count: 1, status: 503 }, path: /displaychatthread/ });
    const { fetchPage } = counted(week, "last7Days");
    const err = await streamPages(fetchPage, () => undefined, { concurrency: 3 }).catch((e: unknown) => e);
    em.faults.clear();
    expect(isInsightError(err) && err.code).toBe("server_error");
  });

  describe("the week before, from last30Days", () => {
    const accumulate = () => new WeekAccumulator({ dayStarts: WINDOW.prevDayStarts });

    it("skips this week's pages and stops past the week before when the listing is newest first", async () => {
      const { fetchPage, stats } = counted(layered, "last30Days");
      const acc = accumulate();
      const r = await readPreviousWeek(fetchPage, WINDOW, 2_000, (t) => acc.add(t), { concurrency: 2 });
      expect(r.method).toBe("skip-ahead");
      // Page 20 holds this week's last 100; 21-23 the week before; 24 the first older ones.
      expect(Math.min(...stats.calls)).toBe(20);
      expect(r.pages).toBeLessThanOrEqual(6);
      const s = acc.result();
      expect(s.threads).toBe(300);
    });

    it("reads every page when the order is not newest first, and still counts the same", async () => {
      const { fetchPage, stats } = counted(layered, "last30Days", "asc");
      const acc = accumulate();
      const r = await readPreviousWeek(fetchPage, WINDOW, 2_000, (t) => acc.add(t), { concurrency: 4 });
      expect(r.method).toBe("full");
      expect(stats.calls).toContain(1);
      expect(acc.result().threads).toBe(300);
    });

    it("reads every page when the skip went too far (this week's count was too high)", async () => {
      const { fetchPage } = counted(layered, "last30Days");
      const acc = accumulate();
      const r = await readPreviousWeek(fetchPage, WINDOW, 2_600, (t) => acc.add(t), { concurrency: 4 });
      expect(r.method).toBe("full");
      const ids = acc.result();
      expect(ids.threads).toBe(300);
    });
  });
});
