import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED, startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { InsightClient } from "../../src/insight/client.js";
import { InsightError } from "../../src/insight/errors.js";
import { ThreadLookup } from "../../src/jobs/thread-lookup.js";

const SUPPORT = SEED.groups.support;

describe("ThreadLookup against the emulator", () => {
  let emulator: Emulator;
  let client: InsightClient;
  let limited: InsightClient;
  /** A group of 450 threads: five listing pages of 100. */
  let big: string;
  let bigThreads: { id: string }[];

  beforeAll(async () => {
    emulator = await startEmulator();
    const retry = { maxAttempts: 1 };
    client = new InsightClient({ baseUrl: emulator.baseUrl, apiKey: emulator.apiKey, retry });
    limited = new InsightClient({ baseUrl: emulator.baseUrl, apiKey: emulator.limitedKey, retry });
    big = emulator.store.addGroup(SEED.communities.primary, { name: "Lumen DB Firehose" })._id;
    emulator.store.addThreads(big, 450);
    bigThreads = emulator.store.threads(big); // newest first, as the listing sorts them
  });
  afterAll(async () => {
    await client.close();
    await limited.close();
    await emulator.close();
  });
  beforeEach(() => {
    emulator.requests.clear();
    emulator.faults.clear();
  });

  const listingRequests = () => emulator.requests.all().filter((r) => r.path.endsWith("/displaychatthread"));

  it("returns the listing entry, with its enrichment", async () => {
    const lookup = new ThreadLookup(client);
    const [newest] = emulator.store.threads(SUPPORT);
    if (!newest) throw new Error("seed has no support threads");
    const t = await lookup.find(SUPPORT, newest.id);
    expect(t).toMatchObject({ id: newest.id, title: newest.title, sentiment: newest.sentiment });
    expect((t as Record<string, unknown>).keywords).toEqual(newest.keywords);
    expect(listingRequests()).toHaveLength(1);
    expect(listingRequests()[0]?.query).toMatchObject({
      page: "1",
      limit: "100",
      sort: "desc",
      range: "allTime",
    });
  });

  it("concurrent finds for one group share one request", async () => {
    const lookup = new ThreadLookup(client);
    const ids = emulator.store
      .threads(SUPPORT)
      .slice(0, 5)
      .map((t) => t.id);
    const found = await Promise.all(ids.map((id) => lookup.find(SUPPORT, id)));
    expect(found.map((t) => t?.id)).toEqual(ids);
    expect(lookup.requests).toBe(1);
    expect(listingRequests()).toHaveLength(1);
  });

  it("concurrent finds for different groups make one request each", async () => {
    const lookup = new ThreadLookup(client);
    const a = emulator.store.threads(SUPPORT)[0]?.id ?? "";
    const b = emulator.store.threads(SEED.groups.contributors)[0]?.id ?? "";
    await Promise.all([
      lookup.find(SUPPORT, a),
      lookup.find(SEED.groups.contributors, b),
      lookup.find(SUPPORT, a),
    ]);
    expect(
      listingRequests()
        .map((r) => r.path)
        .sort(),
    ).toEqual(
      [
        `/api/v1/chatgroup/${SEED.groups.contributors}/displaychatthread`,
        `/api/v1/chatgroup/${SUPPORT}/displaychatthread`,
      ].sort(),
    );
  });

  it("the cache answers within cacheMs and refetches after it", async () => {
    let now = 1_000_000;
    const lookup = new ThreadLookup(client, { cacheMs: 5_000, now: () => now });
    const [first, second] = emulator.store.threads(SUPPORT);
    await lookup.find(SUPPORT, first?.id ?? "");
    now += 5_000;
    expect((await lookup.find(SUPPORT, second?.id ?? ""))?.id).toBe(second?.id);
    expect(lookup.requests).toBe(1);
    now += 1;
    await lookup.find(SUPPORT, first?.id ?? "");
    expect(lookup.requests).toBe(2);
    expect(listingRequests()).toHaveLength(2);
  });

  it("a cached listing shows changes only after a refetch", async () => {
    let now = 1_000_000;
    const lookup = new ThreadLookup(client, { cacheMs: 5_000, now: () => now });
    const thread = emulator.store.addThread(SUPPORT, { sentiment: "neutral" });
    expect((await lookup.find(SUPPORT, thread.id))?.sentiment).toBe("neutral");
    emulator.store.updateThread(SUPPORT, thread.id, { sentiment: "negative" });
    expect((await lookup.find(SUPPORT, thread.id))?.sentiment).toBe("neutral");
    now += 5_001;
    expect((await lookup.find(SUPPORT, thread.id))?.sentiment).toBe("negative");
  });

  it("notBeforeMs newer than the cached listing forces a refetch; older or equal does not", async () => {
    const now = 1_000_000;
    const lookup = new ThreadLookup(client, { cacheMs: 60_000, now: () => now });
    const id = emulator.store.threads(SUPPORT)[0]?.id ?? "";
    await lookup.find(SUPPORT, id); // fetched at 1_000_000
    await lookup.find(SUPPORT, id, { notBeforeMs: now - 10 });
    await lookup.find(SUPPORT, id, { notBeforeMs: now });
    expect(lookup.requests).toBe(1);
    await lookup.find(SUPPORT, id, { notBeforeMs: now + 1 });
    expect(lookup.requests).toBe(2);
  });

  // BUG (src/jobs/thread-lookup.ts read()): `fetchedAt` is taken when the listing answer has
  // arrived, not when it was asked for. An enrichment stamped while the request was in flight
  // (after the service built its answer) then counts as covered by a listing that cannot show
  // it: `notBeforeMs` does not force a refetch and the digest goes out without sentiment.
  it("a listing asked for before an enrichment does not count as showing it", async () => {
    let now = 1_000_000;
    const lookup = new ThreadLookup(client, { cacheMs: 60_000, now: () => now });
    const id = emulator.store.threads(SUPPORT)[0]?.id ?? "";
    emulator.faults.set({ latencyMs: 200 });
    const pending = lookup.find(SUPPORT, id);
    // The request has reached the service; the clock moves on before the answer comes back.
    while (listingRequests().length === 0) await new Promise((r) => setTimeout(r, 5));
    now = 1_000_500;
    await pending;
    emulator.faults.clear();
    // An enrichment stamped at 1_000_100 happened after the listing was asked for.
    await lookup.find(SUPPORT, id, { notBeforeMs: 1_000_100 });
    expect(lookup.requests).toBe(2);
  });

  it("fresh forces a refetch even within cacheMs", async () => {
    const lookup = new ThreadLookup(client, { cacheMs: 60_000, now: () => 1_000_000 });
    const id = emulator.store.threads(SUPPORT)[0]?.id ?? "";
    await lookup.find(SUPPORT, id);
    await lookup.find(SUPPORT, id, { fresh: true });
    expect(lookup.requests).toBe(2);
  });

  it("a lookup of a change reads the top 20 first, and full pages from the first after them", async () => {
    const lookup = new ThreadLookup(client, { cacheMs: 60_000, now: () => 1_000_000 });
    const top = bigThreads[3];
    const below = bigThreads[60];
    if (!top || !below) throw new Error("missing fixture thread");
    expect((await lookup.find(big, top.id, { notBeforeMs: 999_000 }))?.id).toBe(top.id);
    expect(listingRequests().map((r) => [r.query.page, r.query.limit])).toEqual([["1", "20"]]);
    expect((await lookup.find(big, below.id, { fresh: true }))?.id).toBe(below.id);
    expect(listingRequests().map((r) => [r.query.page, r.query.limit])).toEqual([
      ["1", "20"],
      ["1", "20"],
      ["1", "100"],
    ]);
  });

  it("a thread on page 2 is found by reading one page further", async () => {
    const lookup = new ThreadLookup(client);
    const onPage2 = bigThreads[150];
    if (!onPage2) throw new Error("missing fixture thread");
    expect((await lookup.find(big, onPage2.id))?.id).toBe(onPage2.id);
    expect(listingRequests().map((r) => r.query.page)).toEqual(["1", "2"]);
    // Both pages now answer from the cache.
    expect((await lookup.find(big, bigThreads[20]?.id ?? ""))?.id).toBe(bigThreads[20]?.id);
    expect(lookup.requests).toBe(2);
  });

  it("a thread absent from the first maxPages returns undefined after exactly maxPages requests", async () => {
    const lookup = new ThreadLookup(client, { maxPages: 3, cacheMs: 60_000, now: () => 1_000_000 });
    const onPage4 = bigThreads[350]?.id ?? "";
    expect(await lookup.find(big, onPage4)).toBeUndefined();
    expect(lookup.requests).toBe(3);
    expect(listingRequests().map((r) => r.query.page)).toEqual(["1", "2", "3"]);
    // Asking again within the cache does not read further.
    expect(await lookup.find(big, "65f1c0a2e4b0a1d2c3ffffff")).toBeUndefined();
    expect(lookup.requests).toBe(3);
  });

  it("a burst of lookups of one group walks beyond maxPages, once, several pages at a time", async () => {
    const lookup = new ThreadLookup(client, { maxPages: 3, cacheMs: 60_000, now: () => 1_000_000 });
    // 400 enrichments together: the oldest of them is 400 places down the newest-first listing.
    const ids = bigThreads.slice(0, 400).map((t) => t.id);
    const found = await Promise.all(ids.map((id) => lookup.find(big, id)));
    expect(found.every((t, i) => t?.id === ids[i])).toBe(true);
    // One shared walk, each page read once: 1 to 3 one at a time, then four at once (past
    // the last page, 5, of this 450-thread group).
    expect(listingRequests().map((r) => r.query.page)).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
  });

  it("lookups whose enrichment is newer than the walk in flight share the next walk", async () => {
    let now = 1_000_000;
    const lookup = new ThreadLookup(client, { cacheMs: 60_000, now: () => now });
    const ids = bigThreads.slice(0, 20).map((t) => t.id);
    emulator.faults.set({ latencyMs: 100 });
    const first = lookup.find(big, ids[0] ?? "", { notBeforeMs: now });
    while (listingRequests().length === 0) await new Promise((r) => setTimeout(r, 5));
    // Enriched while the first walk was in flight: it cannot show them.
    now += 50;
    const later = ids.slice(1).map((id) => lookup.find(big, id, { notBeforeMs: now - 10 }));
    const found = await Promise.all([first, ...later]);
    expect(found.map((t) => t?.id)).toEqual(ids);
    // Not one walk per lookup: the first, and one more for all nineteen.
    expect(lookup.requests).toBe(2);
  });

  it("stops at the last page of a small group", async () => {
    const lookup = new ThreadLookup(client, { maxPages: 5 });
    expect(await lookup.find(SUPPORT, "no-such-thread")).toBeUndefined();
    expect(lookup.requests).toBe(1);
  });

  it("a 403 propagates as InsightError forbidden", async () => {
    const lookup = new ThreadLookup(limited);
    const err = await lookup.find(SEED.groups.beta, "any").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InsightError);
    expect(err).toMatchObject({ code: "forbidden", details: { status: 403 } });
    // A failure is not cached: the next find asks again.
    await lookup.find(SEED.groups.beta, "any").catch(() => undefined);
    expect(lookup.requests).toBe(2);
  });

  it("a failed read does not poison the cache: the next find succeeds", async () => {
    const lookup = new ThreadLookup(client);
    const id = emulator.store.threads(SUPPORT)[0]?.id ?? "";
    emulator.faults.set({ serverError: { count: 1, status: 503 } });
    await expect(lookup.find(SUPPORT, id)).rejects.toMatchObject({ code: "server_error" });
    expect((await lookup.find(SUPPORT, id))?.id).toBe(id);
  });

  describe("countsOf: the counts a counts edit shows", () => {
    let clock = 1_000_000;
    const at = () => clock;
    /** The thread on the listing's fifth page (the 421st newest of 450). */
    const deep = () => bigThreads[420]?.id ?? "";
    const listed = (id: string) => emulator.store.threads(big).find((t) => t.id === id);

    it("uses a page read after the thread's last message, however deep the thread is now: no request", async () => {
      const lookup = new ThreadLookup(client, { maxPages: 5, now: at });
      expect((await lookup.find(big, deep()))?.id).toBe(deep());
      const reads = lookup.requests;
      // The message was routed 1.5 s before those pages were asked for.
      const counts = await lookup.countsOf(big, deep(), clock - 1_500);
      expect(lookup.requests).toBe(reads);
      expect(counts).toEqual({
        messageCount: listed(deep())?.messageCount,
        participantCount: listed(deep())?.participantCount,
        lastMessageDate: listed(deep())?.lastMessageDate,
      });
    });

    it("a page read before the message, or less than a second after it, is not trusted: the listing is read again", async () => {
      const lookup = new ThreadLookup(client, { maxPages: 5, now: at });
      await lookup.find(big, deep());
      const reads = lookup.requests;
      clock += 10_000;
      await lookup.countsOf(big, deep(), clock - 10_500); // routed 0.5 s before the pages were read
      expect(lookup.requests).toBeGreaterThan(reads);
      const again = lookup.requests;
      clock += 10_000;
      await lookup.countsOf(big, deep(), clock - 5_000); // routed after the last read
      expect(lookup.requests).toBeGreaterThan(again);
    });

    it("without the message's time (another process routed it before a restart), the listing is read afresh", async () => {
      const lookup = new ThreadLookup(client, { maxPages: 5, now: at });
      const [newest] = emulator.store.threads(big);
      await lookup.find(big, newest?.id ?? "");
      const reads = lookup.requests;
      expect((await lookup.countsOf(big, newest?.id ?? ""))?.messageCount).toBe(newest?.messageCount);
      expect(lookup.requests).toBe(reads + 1);
    });
  });
});
