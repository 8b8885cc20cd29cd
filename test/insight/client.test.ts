import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, SEED, type Emulator } from "../../dev/emulator/index.js";
import { InsightClient } from "../../src/insight/client.js";
import type { InsightError } from "../../src/insight/errors.js";
import { RANGES, SORTS } from "../../src/insight/schemas.js";
import { createMetrics } from "../../src/metrics.js";
import { captureLogger } from "../helpers/capture-logger.js";
import { clientMaker, failure } from "./support.js";

/* The client over real HTTP against the emulator: every endpoint, parameter, fault and walk. */

// A fixed clock, so which threads a range includes is exact.
const NOW = new Date("2025-06-02T10:00:00.000Z");
let emu: Emulator;
const made = clientMaker(() => ({ baseUrl: emu.baseUrl, apiKey: emu.apiKey }));
const { client, clients } = made;

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const apiRequests = () => emu.requests.all().filter((r) => r.path.startsWith("/api/"));

beforeAll(async () => {
  emu = await startEmulator({ seed: 7, now: () => NOW });
});
afterEach(async () => {
  await made.closeAll();
  emu.faults.clear();
  emu.requests.clear();
});
afterAll(async () => {
  await emu.close();
});

describe("endpoints", () => {
  it("lists communities and their chat groups; excludeDM leaves direct-message groups out", async () => {
    const { c } = client();
    const communities = await c.listCommunities();
    expect(communities.map((x) => x._id).sort()).toEqual(
      emu.store
        .communities()
        .map((x) => x._id)
        .sort(),
    );
    const all = await c.listChatGroups(SEED.communities.primary);
    expect(all.map((g) => g._id).sort()).toEqual(
      emu.store
        .groups(SEED.communities.primary)
        .map((g) => g._id)
        .sort(),
    );
    expect(all.some((g) => g._id === SEED.groups.dm && g.isDirectMessageGroup === true)).toBe(true);
    const noDm = await c.listChatGroups(SEED.communities.primary, { excludeDM: true });
    expect(noDm.length).toBe(all.length - 1);
    expect(noDm.some((g) => g.isDirectMessageGroup === true)).toBe(false);
    const noDmRequest = apiRequests().at(-1);
    expect(noDmRequest?.query).toEqual({ excludeDM: "true" });
  });

  it("reads a chat group's details", async () => {
    const { c } = client();
    const g = await c.getChatGroup(SEED.groups.support);
    expect(g._id).toBe(SEED.groups.support);
    expect(g.name).toBe(emu.store.groups().find((x) => x._id === SEED.groups.support)?.name);
  });

  it("sends every range and sort, page and limit, and answers with that page", async () => {
    const { c } = client();
    for (const range of RANGES) {
      for (const sort of SORTS) {
        const page = await c.listThreads(SEED.groups.support, { range, sort, page: 1, limit: 5 });
        expect(page.data.length).toBeLessThanOrEqual(5);
        expect(page.pagination?.limit).toBe(5);
        expect(apiRequests().at(-1)?.query).toEqual({ page: "1", limit: "5", range, sort });
      }
    }
    const total = emu.store.threads(SEED.groups.support).length;
    const second = await c.listThreads(SEED.groups.support, { page: 2, limit: 3, sort: "desc" });
    expect(second.pagination).toMatchObject({ page: 2, limit: 3, total, totalPages: Math.ceil(total / 3) });
    const first = await c.listThreads(SEED.groups.support, { page: 1, limit: 6, sort: "desc" });
    expect(second.data.map((t) => t.id)).toEqual(first.data.slice(3, 6).map((t) => t.id));
  });

  it("lists messages, of one thread with chatThreadId", async () => {
    const { c } = client();
    const thread = emu.store.threads(SEED.groups.support)[0];
    if (!thread) throw new Error("the seeded support group has no threads");
    const page = await c.listMessages(SEED.groups.support, {
      chatThreadId: thread.id,
      limit: 100,
      sort: "asc",
    });
    const expected = emu.store.messages(SEED.groups.support, thread.id);
    expect(page.data.map((m) => m.id).sort()).toEqual(expected.map((m) => m.id).sort());
    expect(page.data.every((m) => m.chatThreadSummary?.id === thread.id)).toBe(true);
    expect(apiRequests().at(-1)?.query).toEqual({ chatThreadId: thread.id, limit: "100", sort: "asc" });
    const walked = await collect(c.messages(SEED.groups.support, { chatThreadId: thread.id }));
    expect(walked.map((m) => m.id).sort()).toEqual(expected.map((m) => m.id).sort());
  });

  it("searches with the configured parameter name and keeps the raw answer", async () => {
    const other = await startEmulator({ seed: 7, searchParam: "q" });
    try {
      const c = new InsightClient({ baseUrl: other.baseUrl, apiKey: other.apiKey, searchParam: "q" });
      clients.push(c);
      const title = other.store.threads(SEED.groups.support)[0]?.title ?? "refund";
      const res = await c.search(SEED.groups.support, title, { limit: 10 });
      expect(res.threads.length + res.messages.length).toBeGreaterThan(0);
      expect(res.threads.every((t) => t.id.length > 0)).toBe(true);
      expect(res.raw).toMatchObject({ data: expect.any(Array) });
      const seen = other.requests.all().at(-1);
      expect(seen?.query).toEqual({ q: title, limit: "10" });
    } finally {
      await other.close();
    }
  });

  it("pins the version in every path: v1 by default, INSIGHT_API_VERSION when configured", async () => {
    const { c } = client();
    await c.listCommunities();
    await c.listChatGroups(SEED.communities.primary);
    await c.getChatGroup(SEED.groups.support);
    await c.listThreads(SEED.groups.support);
    await c.listMessages(SEED.groups.support);
    await c.search(SEED.groups.support, "billing");
    const seen = apiRequests();
    expect(seen.length).toBe(6);
    expect(seen.map((r) => r.version)).toEqual(Array(6).fill("v1"));
    expect(seen.every((r) => r.path.startsWith("/api/v1/"))).toBe(true);

    emu.requests.clear();
    const { c: v2 } = client({ apiVersion: "v2", retry: { maxAttempts: 1 } });
    await v2.listCommunities().catch(() => undefined);
    await v2.listThreads(SEED.groups.support).catch(() => undefined);
    expect(apiRequests().map((r) => r.version)).toEqual(["v2", "v2"]);
  });

  it("checks parameters before sending anything", async () => {
    const { c } = client();
    const bad = [
      () => c.listThreads(SEED.groups.support, { limit: 101 }),
      () => c.listThreads(SEED.groups.support, { page: 0 }),
      () => c.listMessages(SEED.groups.support, { range: "lastYear" as never }),
      () => c.listMessages(SEED.groups.support, { sort: "up" as never }),
      () => c.search(SEED.groups.support, ""),
      () => c.getChatGroup(""),
      () => collect(c.threads(SEED.groups.support, { range: "soon" as never })),
    ];
    for (const call of bad) {
      const e = await failure((async () => call())());
      expect(e.code).toBe("invalid_params");
    }
    expect(apiRequests().length).toBe(0);
  });
});

describe("walks", () => {
  it("walks a 1,000-thread group in 10 requests at limit 100, every thread exactly once", async () => {
    const group = emu.store.addGroup(SEED.communities.primary, { name: "walk" });
    emu.store.addThreads(group._id, 1000);
    const { c } = client();
    const pages = await collect(c.threadPages(group._id));
    const ids = pages.flatMap((p) => p.data.map((t) => t.id));
    expect(ids.length).toBe(1000);
    expect(new Set(ids).size).toBe(1000);
    expect(new Set(ids)).toEqual(new Set(emu.store.threads(group._id).map((t) => t.id)));
    const seen = apiRequests();
    expect(seen.length).toBe(10);
    expect(seen.map((r) => r.query)).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ page: String(i + 1), limit: "100" })),
    );
    expect(pages.every((p) => p.dropped === 0)).toBe(true);
  });

  it("walks threads with a range and sort, and an empty group in one request", async () => {
    const group = emu.store.addGroup(SEED.communities.primary, { name: "ranged" });
    emu.store.addThreads(group._id, 250, { withinDays: 60 });
    const { c } = client();
    const recent = await collect(c.threads(group._id, { range: "last30Days", sort: "asc" }));
    const from = NOW.getTime() - 30 * 86_400_000;
    const expected = emu.store.threads(group._id).filter((t) => Date.parse(t.lastMessageDate) >= from);
    expect(recent.map((t) => t.id).sort()).toEqual(expected.map((t) => t.id).sort());
    expect(recent.length).toBeLessThan(250);
    const dates = recent.map((t) => t.lastMessageDate ?? "");
    expect(dates).toEqual([...dates].sort());
    expect(apiRequests().every((r) => r.query.range === "last30Days" && r.query.sort === "asc")).toBe(true);

    emu.requests.clear();
    const empty = emu.store.addGroup(SEED.communities.primary, { name: "empty" });
    expect(await collect(c.threads(empty._id))).toEqual([]);
    expect(apiRequests().length).toBe(1);
  });
});

describe("faults", () => {
  it("retries 429 with Retry-After, waiting at least that long, then succeeds", async () => {
    emu.faults.set({ rateLimit: { count: 2, retryAfterSeconds: 3 } });
    const { c, slept } = client();
    const communities = await c.listCommunities();
    expect(communities.length).toBe(emu.store.communities().length);
    expect(apiRequests().map((r) => r.status)).toEqual([429, 429, 200]);
    expect(slept.length).toBe(2);
    for (const ms of slept) expect(ms).toBeGreaterThanOrEqual(3000);
  });

  it("retries 5xx with jittered exponential backoff, then succeeds", async () => {
    emu.faults.set({ serverError: { count: 3, status: 503 } });
    const metrics = createMetrics();
    const { c, slept } = client({ metrics });
    const page = await c.listThreads(SEED.groups.support, { limit: 10 });
    expect(page.data.length).toBe(10);
    expect(apiRequests().map((r) => r.status)).toEqual([503, 503, 503, 200]);
    expect(slept).toEqual([125, 250, 500]);
    const counted = (await metrics.insightCalls.get()).values.map((v) => [
      v.labels.endpoint,
      v.labels.status,
      v.value,
    ]);
    expect(counted).toEqual([
      ["chatgroup/:id/displaychatthread", "503", 3],
      ["chatgroup/:id/displaychatthread", "200", 1],
    ]);
  });

  it("gives the typed error when retries run out", async () => {
    emu.faults.set({ rateLimit: { count: 100, retryAfterSeconds: 1 } });
    const { c, slept } = client({ retry: { maxAttempts: 3 } });
    const e = await failure(c.listCommunities());
    expect(e.code).toBe("rate_limited");
    expect(e.details).toMatchObject({ status: 429, attempts: 3, retryAfterMs: 1000 });
    expect(slept.length).toBe(2);

    emu.faults.set({ serverError: { count: 100, status: 500 } });
    const s = await failure(c.getChatGroup(SEED.groups.support));
    expect(s.code).toBe("server_error");
    expect(s.details).toMatchObject({ status: 500, attempts: 3 });
  });

  it("fails at once with retryAfterMs when Retry-After exceeds the total budget", async () => {
    emu.faults.set({ rateLimit: { count: 5, retryAfterSeconds: 90 } });
    const { c, slept } = client();
    const e = await failure(c.listCommunities());
    expect(e.code).toBe("rate_limited");
    expect(e.details.retryAfterMs).toBe(90_000);
    expect(e.message).toContain("try again in 90 s");
    expect(slept).toEqual([]);
    expect(apiRequests().length).toBe(1);
  });

  it("applies a fault to the paths it names only", async () => {
    emu.faults.set({ serverError: { count: 100 }, path: /displaychatmessage/ });
    const { c } = client({ retry: { maxAttempts: 2 } });
    expect((await c.listThreads(SEED.groups.support, { limit: 1 })).data.length).toBe(1);
    expect((await failure(c.listMessages(SEED.groups.support))).code).toBe("server_error");
  });

  it("maps 401, 403 and 404 without retrying", async () => {
    const { c: wrong } = client({ apiKey: "not-a-key-at-all" });
    const u = await failure(wrong.listCommunities());
    expect(u.code).toBe("unauthorized");
    const { c: limited } = client({ apiKey: emu.limitedKey });
    expect((await limited.listChatGroups(SEED.communities.primary)).length).toBeGreaterThan(0);
    const f = await failure(limited.listChatGroups(SEED.communities.secondary));
    expect(f.code).toBe("forbidden");
    const { c } = client();
    const n = await failure(c.getChatGroup("no-such-group"));
    expect(n.code).toBe("not_found");
    expect(apiRequests().map((r) => r.status)).toEqual([401, 200, 403, 404]);
  });

  it("a slow server hits the per-request timeout", async () => {
    emu.faults.set({ latencyMs: 1000 });
    const { c, slept } = client({ timeoutMs: 100, retry: { maxAttempts: 2 } });
    const e = await failure(c.listCommunities());
    expect(e.code).toBe("timeout");
    expect(e.details.attempts).toBe(2);
    expect(slept.length).toBe(1);
  });

  it("a server that drops connections is a network error; a hung one a timeout", async () => {
    emu.faults.set({ down: true });
    const { c } = client({ retry: { maxAttempts: 2 } });
    expect((await failure(c.listCommunities())).code).toBe("network");
    emu.faults.set({ hang: true });
    const { c: h } = client({ timeoutMs: 100, retry: { maxAttempts: 1 } });
    expect((await failure(h.listCommunities())).code).toBe("timeout");
  });

  it("never writes the key into an error message or a log line", async () => {
    const { logger, lines } = captureLogger();
    const errors: InsightError[] = [];
    const { c } = client({ logger, retry: { maxAttempts: 2 } });
    const { c: limited } = client({ logger, apiKey: emu.limitedKey });
    await c.listCommunities();
    await collect(c.threads(SEED.groups.support));
    emu.faults.set({ rateLimit: { count: 100, retryAfterSeconds: 1 } });
    errors.push(await failure(c.listCommunities()));
    emu.faults.set({ serverError: { count: 100 } });
    errors.push(await failure(c.listThreads(SEED.groups.support)));
    emu.faults.clear();
    errors.push(await failure(limited.listChatGroups(SEED.communities.secondary)));
    emu.faults.set({ latencyMs: 500 });
    const { c: slow } = client({ logger, timeoutMs: 50, retry: { maxAttempts: 2 } });
    errors.push(await failure(slow.getChatGroup(SEED.groups.support)));
    expect(errors.map((e) => e.code)).toEqual(["rate_limited", "server_error", "forbidden", "timeout"]);
    expect(lines.length).toBeGreaterThan(5);
    for (const key of [emu.apiKey, emu.limitedKey]) {
      for (const line of lines) expect(line).not.toContain(key);
      for (const e of errors) {
        expect(e.message).not.toContain(key);
        expect(JSON.stringify({ ...e.details, cause: undefined })).not.toContain(key);
      }
    }
  });
});
