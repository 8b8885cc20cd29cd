import type { ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { InsightError } from "../../src/insight/errors.js";
import { createMetrics } from "../../src/metrics.js";
import { freePort } from "../helpers/global-redis.js";
import { captureLogger } from "../helpers/capture-logger.js";
import { clientMaker, failure } from "./support.js";
import { json, startStubServer, type StubServer } from "./stub-server.js";

/*
 * The client against a tiny real HTTP server, for answers the emulator cannot give:
 * bodies that are not JSON, wrong shapes, bodies that never end, refused connections.
 */

const KEY = "ik_live_wire_test_key_5f1c9a";
let stub: StubServer;
const made = clientMaker(() => ({ baseUrl: stub.baseUrl, apiKey: KEY }));
const { client, clients } = made;

beforeAll(async () => {
  stub = await startStubServer();
});
afterEach(async () => {
  await made.closeAll();
  stub.seen.length = 0;
});
afterAll(async () => {
  await stub.close();
});

describe("InsightClient on the wire", () => {
  it("sends X-API-Key, asks for JSON, keeps a base path prefix and encodes path segments", async () => {
    stub.handle = (_req, res) => json(res, 200, { _id: "g/1 x", name: "G" });
    const { c } = client({ baseUrl: `${stub.baseUrl}/insight/` });
    const g = await c.getChatGroup("g/1 x");
    expect(g._id).toBe("g/1 x");
    expect(stub.seen[0]?.url).toBe("/insight/api/v1/chatgroup/g%2F1%20x");
    expect(stub.seen[0]?.headers["x-api-key"]).toBe(KEY);
    expect(stub.seen[0]?.headers.accept).toBe("application/json");
  });

  it("a 200 whose body is not JSON is invalid_json, not retried", async () => {
    stub.handle = (_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<html>maintenance</html>");
    const { c } = client();
    const e = await failure(c.listThreads("g1"));
    expect(e.code).toBe("invalid_json");
    expect(e.details.status).toBe(200);
    expect(e.message).toContain("text/html, 24 bytes");
    expect(stub.seen.length).toBe(1);
  });

  it("a page whose data is not an array is schema_mismatch", async () => {
    stub.handle = (_req, res) => json(res, 200, { data: { id: "t1" }, pagination: { page: 1 } });
    const { c } = client();
    const e = await failure(c.listThreads("g1"));
    expect(e.code).toBe("schema_mismatch");
    expect(e.message).toContain("/api/v1/chatgroup/g1/displaychatthread");
    expect(e.message).toContain("data");
  });

  it("a community list that is not an array is schema_mismatch; a { data } envelope is accepted", async () => {
    stub.handle = (_req, res) => json(res, 200, { error: "nope" });
    const { c } = client();
    expect((await failure(c.listCommunities())).code).toBe("schema_mismatch");
    stub.handle = (_req, res) => json(res, 200, { data: [{ _id: "c1", name: "One" }] });
    expect((await c.listCommunities()).map((x) => x._id)).toEqual(["c1"]);
  });

  it("unknown fields pass through, missing optional ones parse, bad items are dropped and logged at warn", async () => {
    stub.handle = (_req, res) =>
      json(res, 200, {
        data: [
          { id: "t1", title: "Refunds", keywords: ["billing"], futureField: { x: 1 } },
          { id: "t2" },
          { title: "no id" },
          { id: 7, messageCount: "many", sentiment: "mixed" },
        ],
        pagination: { page: 1, limit: 50, total: 4, totalPages: 1, next: null },
      });
    const { logger, lines } = captureLogger();
    const { c } = client({ logger });
    const page = await c.listThreads("g1");
    expect(page.data.map((t) => t.id)).toEqual(["t1", "t2", "7"]);
    expect(page.data[0]?.keywords).toEqual(["billing"]);
    expect(page.data[0]?.futureField).toEqual({ x: 1 });
    expect(page.data[1]?.title).toBe("");
    expect(page.data[1]?.summary).toBeUndefined();
    expect(page.data[2]?.messageCount).toBeUndefined();
    expect(page.data[2]?.sentiment).toBe("mixed");
    expect(page.dropped).toBe(1);
    expect(page.pagination?.totalPages).toBe(1);
    const warn = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.level === 40);
    expect(warn).toMatchObject({ dropped: 1, endpoint: "chatgroup/:id/displaychatthread" });
  });

  it("a missing or malformed pagination object is absent, not fatal", async () => {
    stub.handle = (_req, res) => json(res, 200, { data: [{ id: "m1" }], pagination: "x" });
    const { c } = client();
    const page = await c.listMessages("g1", { chatThreadId: "t1" });
    expect(page.pagination).toBeUndefined();
    expect(page.data[0]?.messageText).toBe("");
    expect(stub.seen[0]?.url).toBe("/api/v1/chatgroup/g1/displaychatmessage?chatThreadId=t1");
  });

  it("connection refused is a network error after bounded retries", async () => {
    const port = await freePort();
    const { c, slept } = client({ baseUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 3 } });
    const e = await failure(c.listCommunities());
    expect(e.code).toBe("network");
    expect(e.message).toContain("ECONNREFUSED");
    expect(e.details.attempts).toBe(3);
    expect(slept).toEqual([125, 250]);
  });

  it("a body that never ends hits the per-request timeout (headers and body)", async () => {
    stub.handle = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"data": [');
    };
    const { c } = client({ timeoutMs: 150 });
    const e = await failure(c.listThreads("g1", {}, { maxAttempts: 2 }));
    expect(e.code).toBe("timeout");
    expect(e.details.attempts).toBe(2);
    expect(stub.seen.length).toBe(2);
  });

  it("a Retry-After given as an HTTP date is honoured", async () => {
    let n = 0;
    stub.handle = (_req, res) => {
      if (n++ === 0) {
        json(res, 429, {}, { "retry-after": new Date(Date.now() + 5_000).toUTCString() });
      } else json(res, 200, []);
    };
    const { c, slept } = client();
    expect(await c.listCommunities()).toEqual([]);
    expect(slept.length).toBe(1);
    // toUTCString drops milliseconds: the wait is within a second of 5 s, never the 125 ms backoff.
    expect(slept[0]).toBeGreaterThan(3_900);
    expect(slept[0]).toBeLessThanOrEqual(5_000);
  });

  it("a Retry-After beyond the total budget fails now with rate_limited and retryAfterMs", async () => {
    stub.handle = (_req, res) => json(res, 429, {}, { "retry-after": "120" });
    const { c, slept } = client();
    const e = await failure(c.listCommunities());
    expect(e.code).toBe("rate_limited");
    expect(e.details.retryAfterMs).toBe(120_000);
    expect(e.message).toContain("try again in 120 s");
    expect(slept).toEqual([]);
    expect(stub.seen.length).toBe(1);
  });

  it("400 is bad_request and not retried; every attempt is counted by endpoint template", async () => {
    stub.handle = (req, res) => (req.url?.includes("/search") ? json(res, 400, {}) : json(res, 503, {}));
    const metrics = createMetrics();
    const { c } = client({ metrics, retry: { maxAttempts: 2 } });
    expect((await failure(c.search("grp-123", "refund"))).code).toBe("bad_request");
    expect((await failure(c.getChatGroup("grp-123"))).code).toBe("server_error");
    const counted = (await metrics.insightCalls.get()).values.map((v) => [
      v.labels.endpoint,
      v.labels.status,
      v.value,
    ]);
    expect(counted).toEqual([
      ["chatgroup/:id/search", "400", 1],
      ["chatgroup/:id", "503", 2],
    ]);
  });

  it("a caller's abort ends a retry wait at once, without the typed error", async () => {
    stub.handle = (_req, res) => json(res, 503, {});
    const ac = new AbortController();
    const { c } = client({
      sleep: () => {
        ac.abort(new Error("user gave up"));
        return new Promise(() => undefined);
      },
    });
    await expect(c.listCommunities({ signal: ac.signal })).rejects.toThrow("user gave up");
    expect(stub.seen.length).toBe(1);
  });

  it("the key never appears in an error message, error details or a log line", async () => {
    const { logger, lines } = captureLogger();
    const port = await freePort();
    const errors: InsightError[] = [];
    const answers: Array<(res: ServerResponse) => void> = [
      (res) => json(res, 401, { error: `bad key ${KEY}` }),
      (res) => json(res, 403, { key: KEY }),
      (res) => json(res, 404, {}),
      (res) => json(res, 429, {}, { "retry-after": "1" }),
      (res) => json(res, 500, { echo: KEY }),
      (res) => res.writeHead(200).end(KEY),
      (res) => json(res, 200, { data: KEY }),
    ];
    for (const answer of answers) {
      stub.handle = (_req, res) => answer(res);
      const { c } = client({ logger, retry: { maxAttempts: 2 } });
      errors.push(await failure(c.listThreads(KEY.slice(0, 3))));
    }
    const { c: down } = client({ logger, baseUrl: `http://127.0.0.1:${port}`, retry: { maxAttempts: 2 } });
    errors.push(await failure(down.listCommunities()));
    stub.handle = () => undefined;
    const { c: slow } = client({ logger, timeoutMs: 50, retry: { maxAttempts: 2 } });
    errors.push(await failure(slow.getChatGroup("g1")));
    // An id that is the key itself is scrubbed from messages too.
    stub.handle = (_req, res) => json(res, 404, {});
    const { c: odd } = client({ logger });
    errors.push(await failure(odd.getChatGroup(KEY)));

    expect(errors.map((e) => e.code)).toEqual([
      "unauthorized",
      "forbidden",
      "not_found",
      "rate_limited",
      "server_error",
      "invalid_json",
      "schema_mismatch",
      "network",
      "timeout",
      "not_found",
    ]);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).not.toContain(KEY);
    for (const e of errors) {
      expect(e.message).not.toContain(KEY);
      expect(String(e.stack)).not.toContain(KEY);
      expect(JSON.stringify({ ...e.details, cause: undefined })).not.toContain(KEY);
      const cause = e.details.cause;
      if (cause instanceof Error) expect(cause.message).not.toContain(KEY);
    }
    expect(JSON.stringify(clients[0])).not.toContain(KEY);
  });
});
