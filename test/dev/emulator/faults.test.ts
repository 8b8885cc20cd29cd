import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  FaultInjector,
  RequestLog,
  SEED,
  startEmulator,
  type Emulator,
} from "../../../dev/emulator/index.js";
import { get, post, type ErrorBody } from "./http.js";

/* Fault injection over real HTTP: 429 with Retry-After, 5xx, latency, a dead and a hanging server. */

let emu: Emulator;
const community = "/api/v1/community";
const threads = `/api/v1/chatgroup/${SEED.groups.support}/displaychatthread`;

beforeAll(async () => {
  emu = await startEmulator();
});
afterEach(() => {
  emu.faults.clear();
  emu.requests.clear();
});
afterAll(async () => {
  await emu.close();
});

/** Resolves once the emulator has received `n` API requests (no fixed sleeps). */
async function arrived(n: number): Promise<void> {
  while (emu.requests.count() < n) await new Promise((r) => setImmediate(r));
}

describe("counted faults", () => {
  it("rateLimit: the next `count` requests get 429 with Retry-After in seconds, then normal", async () => {
    emu.faults.set({ rateLimit: { count: 2, retryAfterSeconds: 7 } });
    const first = await get<ErrorBody>(emu, community);
    expect(first.status).toBe(429);
    expect(first.headers.get("retry-after")).toBe("7");
    expect(first.body).toEqual({ error: expect.any(String), status: 429 });
    expect((await get(emu, community)).status).toBe(429);
    expect((await get(emu, community)).status).toBe(200);
    expect(emu.requests.all().map((r) => r.status)).toEqual([429, 429, 200]);
  });

  it("rateLimit defaults Retry-After to 1 second and applies before authentication", async () => {
    emu.faults.set({ rateLimit: { count: 1 } });
    const r = await get(emu, community, { key: null });
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("1");
    expect((await get(emu, community, { key: null })).status).toBe(401);
  });

  it("serverError: the next `count` requests get the status (default 500), then normal", async () => {
    emu.faults.set({ serverError: { count: 1 } });
    const r = await get<ErrorBody>(emu, threads);
    expect(r.status).toBe(500);
    expect(r.body.status).toBe(500);
    expect((await get(emu, threads)).status).toBe(200);
    emu.faults.set({ serverError: { count: 2, status: 503 } });
    expect((await get(emu, threads)).status).toBe(503);
    expect((await get(emu, threads)).status).toBe(503);
    expect((await get(emu, threads)).status).toBe(200);
  });

  it("uses rate limits before server errors when both are set", async () => {
    emu.faults.set({ rateLimit: { count: 1 }, serverError: { count: 1, status: 502 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(emu, community)).status);
    expect(statuses).toEqual([429, 502, 200]);
  });

  it("path: only matching paths are affected, and only they use up the count", async () => {
    emu.faults.set({ serverError: { count: 1 }, path: /displaychatthread/ });
    expect((await get(emu, community)).status).toBe(200);
    expect((await get(emu, threads)).status).toBe(500);
    expect((await get(emu, threads)).status).toBe(200);
  });

  it("clear() removes every fault", async () => {
    emu.faults.set({ rateLimit: { count: 5 }, down: true });
    emu.faults.clear();
    expect((await get(emu, community)).status).toBe(200);
  });
});

describe("connection faults", () => {
  it("down: destroys the socket without an answer; recorded with status null", async () => {
    emu.faults.set({ down: true });
    await expect(get(emu, community)).rejects.toThrow();
    expect(emu.requests.all().map((r) => r.status)).toEqual([null]);
    emu.faults.clear();
    expect((await get(emu, community)).status).toBe(200);
  });

  it("hang: never answers; the emulator still closes", async () => {
    const own = await startEmulator({ seeded: false });
    own.faults.set({ hang: true });
    const pending = get(own, community).then(
      () => "answered",
      () => "failed",
    );
    while (own.requests.count() < 1) await new Promise((r) => setImmediate(r));
    expect(own.requests.all()[0]?.status).toBeNull();
    await own.close();
    expect(await pending).toBe("failed");
  });

  it("latencyMs: the answer is held back (a client giving up first gets nothing)", async () => {
    emu.faults.set({ latencyMs: 60_000 });
    const controller = new AbortController();
    const pending = get(emu, community, { signal: controller.signal });
    await arrived(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(emu.requests.all()[0]?.status).toBeNull();
  });

  it("latencyMs: a short delay still ends in the normal answer; it combines with counted faults", async () => {
    emu.faults.set({ latencyMs: 20, rateLimit: { count: 1 } });
    expect((await get(emu, community)).status).toBe(429);
    const r = await get<unknown[]>(emu, community);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(3);
  });
});

describe("control over HTTP (POST /_emulator/faults)", () => {
  it("sets faults from JSON and clears them with {}", async () => {
    const set = await post<Record<string, unknown>>(emu, "/_emulator/faults", {
      rateLimit: { count: 1, retryAfterSeconds: 3 },
    });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ rateLimit: { count: 1, retryAfterSeconds: 3 } });
    const limited = await get(emu, community);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("3");

    await post(emu, "/_emulator/faults", { serverError: { count: 10, status: 502 } });
    expect((await get(emu, community)).status).toBe(502);
    const cleared = await post(emu, "/_emulator/faults", {});
    expect(cleared.body).toEqual({});
    expect((await get(emu, community)).status).toBe(200);
  });

  it("rejects malformed fault bodies with 400 and leaves faults unchanged", async () => {
    expect((await post(emu, "/_emulator/faults", { rateLimit: { count: -1 } })).status).toBe(400);
    expect((await post(emu, "/_emulator/faults", { explode: true })).status).toBe(400);
    expect((await get(emu, community)).status).toBe(200);
  });

  it("control requests are neither logged nor faulted", async () => {
    emu.faults.set({ down: true });
    const r = await post(emu, "/_emulator/faults", {});
    expect(r.status).toBe(200);
    expect(emu.requests.count()).toBe(0);
  });
});

describe("FaultInjector", () => {
  it("reports what is left of counted faults", () => {
    const f = new FaultInjector();
    f.set({ rateLimit: { count: 2 }, latencyMs: 5 });
    expect(f.decide("/api/v1/community").action).toEqual({ kind: "rateLimit", retryAfterSeconds: 1 });
    expect(f.active()).toEqual({ rateLimit: { count: 1 }, latencyMs: 5 });
    f.decide("/x");
    expect(f.decide("/x")).toEqual({ latencyMs: 5, action: { kind: "none" } });
  });

  it("does not let a caller mutate the active spec through the object it passed", () => {
    const f = new FaultInjector();
    const spec = { rateLimit: { count: 1 } };
    f.set(spec);
    f.decide("/x");
    expect(spec.rateLimit.count).toBe(1);
  });
});

describe("RequestLog", () => {
  it("drops the oldest tenth beyond its bound", () => {
    const log = new RequestLog(20);
    for (let i = 0; i < 21; i++) {
      log.start({ method: "GET", path: `/${i}`, version: null, query: {}, at: new Date(0), key: "none" });
    }
    expect(log.count()).toBe(19);
    expect(log.all()[0]?.path).toBe("/2");
  });
});
