import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED, startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { answerQuestion } from "../../src/ask/answer-question.js";
import { CommunityReader, serviceRangeFor } from "../../src/ask/community-reader.js";
import { readTimeRange } from "../../src/ask/time-range.js";
import { InsightClient } from "../../src/insight/client.js";
import type { Page, Thread } from "../../src/insight/schemas.js";
import { silentLogger } from "../../src/log.js";

const NOW = Date.parse("2025-11-26T15:00:00Z");
const DAY = 86_400_000;
const BIG = SEED.groups.contributors;
/** A group of thousands of threads: 20,000 over 120 days (about 167 a day). */
const BIG_THREADS = 20_000;

describe("CommunityReader: bounded pages, shared fetches, a short cache", () => {
  let emu: Emulator;
  let client: InsightClient;
  let clock = NOW;
  beforeAll(async () => {
    emu = await startEmulator({ now: () => new Date(NOW) });
    emu.store.addThreads(BIG, BIG_THREADS, { withinDays: 120 });
    client = new InsightClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey });
  });
  afterAll(async () => {
    await client.close();
    await emu.close();
  });
  const listingCalls = () =>
    emu.requests.count((r) => r.path === `/api/v1/chatgroup/${BIG}/displaychatthread`);

  it("chooses the narrowest of the service's ranges that covers the date", () => {
    expect(serviceRangeFor(NOW - 6 * DAY, NOW)).toBe("last7Days");
    expect(serviceRangeFor(NOW - 14 * DAY, NOW)).toBe("last30Days");
    expect(serviceRangeFor(NOW - 60 * DAY, NOW)).toBe("last3Months");
    expect(serviceRangeFor(NOW - 150 * DAY, NOW)).toBe("last6Months");
    expect(serviceRangeFor(NOW - 400 * DAY, NOW)).toBe("allTime");
  });

  it("reads the newest pages only, down to the date, and counts what the whole listing says", async () => {
    const reader = new CommunityReader(client, { now: () => NOW });
    const from = NOW - 14 * DAY;
    emu.requests.clear();
    const got = await reader.threadsSince(BIG, from);
    const pages = listingCalls();
    const inWindow = emu.store.threads(BIG).filter((t) => Date.parse(t.lastMessageDate) >= from);
    // last30Days holds ~5,000 of them (50 pages); two weeks need about half, plus one batch of margin.
    expect(pages).toBeLessThanOrEqual(Math.ceil(inWindow.length / 100) + 4);
    expect(pages).toBeLessThan(45);
    const read = new Set(
      got.threads.filter((t) => Date.parse(t.lastMessageDate ?? "") >= from).map((t) => t.id),
    );
    expect(read).toEqual(new Set(inWindow.map((t) => t.id)));
    expect(got.capped).toBe(false);
    expect(emu.requests.all().every((r) => r.query.sort === "desc" && r.query.range === "last30Days")).toBe(
      true,
    );
  });

  it("shares one read among questions asked together, and reuses it for a short while", async () => {
    clock = NOW;
    const reader = new CommunityReader(client, { now: () => clock, cacheMs: 60_000 });
    emu.requests.clear();
    const [a, b] = await Promise.all([
      reader.threadsSince(BIG, NOW - 3 * DAY),
      reader.threadsSince(BIG, NOW - 2 * DAY),
    ]);
    expect(a).toBe(b);
    const once = listingCalls();
    expect(once).toBeGreaterThan(0);
    clock = NOW + 30_000;
    await reader.threadsSince(BIG, NOW - 3 * DAY);
    expect(listingCalls()).toBe(once);
    // An older date than the cached read covers: read again.
    await reader.threadsSince(BIG, NOW - 10 * DAY);
    expect(listingCalls()).toBeGreaterThan(once);
    const twice = listingCalls();
    // Past the cache's life: read again.
    clock = NOW + 120_000;
    await reader.threadsSince(BIG, NOW - 3 * DAY);
    expect(listingCalls()).toBeGreaterThan(twice);
    // Searches too.
    emu.requests.clear();
    await Promise.all([reader.topicThreads(BIG, "release"), reader.topicThreads(BIG, "Release ")]);
    expect(emu.requests.count((r) => r.path.endsWith("/search"))).toBeGreaterThan(0);
    const searches = emu.requests.count((r) => r.path.endsWith("/search"));
    await reader.topicThreads(BIG, "release");
    expect(emu.requests.count((r) => r.path.endsWith("/search"))).toBe(searches);
  });

  it("stops at the page cap and says so", async () => {
    const reader = new CommunityReader(client, { now: () => NOW, maxPages: 5 });
    const got = await reader.threadsSince(BIG, NOW - 60 * DAY);
    expect(got.threads).toHaveLength(500);
    expect(got.capped).toBe(true);
  });

  it("answers about a group of 20,000 threads in well under a few seconds", async () => {
    const clockNow = { now: NOW, timeZone: "UTC" };
    const timings: Record<string, number> = {};
    const capped: Record<string, boolean> = {};
    for (const words of ["this week", "last 30 days"]) {
      const r = readTimeRange(words, clockNow);
      if (r.kind !== "range") throw new Error(words);
      const reader = new CommunityReader(client, { now: () => NOW });
      const started = performance.now();
      const out = await answerQuestion(
        { reader, reportInsightError: async () => undefined, logger: silentLogger },
        {
          groups: [{ id: BIG, name: "Big" }],
          scope: "named",
          range: r.range,
          unanswered: false,
          questionsOnly: false,
          topic: "release",
        },
      );
      timings[words] = Math.round(performance.now() - started);
      if (!out.ok) throw new Error(out.reply);
      capped[words] = out.answer.limits.cappedGroups.length > 0;
    }
    console.log(
      `ask over ${BIG_THREADS} threads (first read, no cache): ${JSON.stringify(timings)} ms, capped ${JSON.stringify(capped)}`,
    );
    expect(capped["this week"]).toBe(false);
    for (const ms of Object.values(timings)) expect(ms).toBeLessThan(3_000);
  });
});

describe("CommunityReader over a listing whose order is not newest first", () => {
  /** A listing of 10 pages whose dates are shuffled: the early stop must not be taken. */
  function shuffledListing(): { calls: number[]; client: ConstructorParameters<typeof CommunityReader>[0] } {
    const threads: Thread[] = Array.from({ length: 1000 }, (_, i) => ({
      id: `t${i}`,
      title: `Thread ${i}`,
      lastMessageDate: new Date(NOW - ((i * 7919) % 1000) * 3_600_000).toISOString(),
      messageCount: 2,
    }));
    const calls: number[] = [];
    return {
      calls,
      client: {
        async listThreads(_g, p = {}): Promise<Page<Thread>> {
          const page = p.page ?? 1;
          calls.push(page);
          const data = threads.slice((page - 1) * 100, page * 100);
          return { data, pagination: { page, limit: 100, total: 1000, totalPages: 10 }, dropped: 0 };
        },
        async search() {
          return { threads: [], messages: [], raw: {} };
        },
      },
    };
  }

  it("reads every page when the order cannot be trusted", async () => {
    const { calls, client } = shuffledListing();
    const reader = new CommunityReader(client, { now: () => NOW });
    const got = await reader.threadsSince("g", NOW - 2 * DAY);
    expect(calls.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(got.threads).toHaveLength(1000);
  });
});
