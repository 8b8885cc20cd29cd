import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import express from "express";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedPath, requestIdRouter, type RequestLocals } from "../../src/http/request-id.js";
import { createLogger } from "../../src/log.js";

const SECRET = "webhook-secret-abcdefghijkl";

describe("request ids", () => {
  const lines: Record<string, unknown>[] = [];
  let server: Server;
  let base: string;
  let seq = 0;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        for (const l of chunk.toString("utf8").split("\n").filter(Boolean)) lines.push(JSON.parse(l));
        cb();
      },
    });
    const logger = createLogger({ level: "debug", destination: sink, secrets: [SECRET] });
    const app = express();
    app.use(requestIdRouter(logger, () => `generated-${++seq}`));
    app.get("/hello", (_req, res) => {
      const locals = res.locals as RequestLocals;
      locals.log.info("inside handler");
      res.json({ id: locals.requestId });
    });
    app.post("/webhooks/insight/:secret", (_req, res) => {
      res.status(200).json({ ok: true });
    });
    app.get("/healthz", (_req, res) => {
      res.json({ ok: true });
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const waitForLine = async (pred: (l: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const found = lines.find(pred);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("no such log line");
  };

  it("gives each request its own id, echoed in X-Request-Id and on res.locals", async () => {
    const a = await request(`${base}/hello`);
    const b = await request(`${base}/hello`);
    const idA = a.headers["x-request-id"];
    const idB = b.headers["x-request-id"];
    expect(idA).toMatch(/^generated-\d+$/);
    expect(idB).toMatch(/^generated-\d+$/);
    expect(idA).not.toBe(idB);
    expect(await a.body.json()).toEqual({ id: idA });
    await b.body.dump();
    const inside = await waitForLine((l) => l.msg === "inside handler" && l.reqId === idA);
    expect(inside.level).toBe(30);
    const done = await waitForLine((l) => l.msg === "request" && l.reqId === idA);
    expect(done).toMatchObject({ method: "GET", path: "/hello", status: 200 });
    expect(typeof done.ms).toBe("number");
  });

  it("keeps a plain incoming id and replaces a hostile one", async () => {
    const kept = await request(`${base}/hello`, { headers: { "x-request-id": "lb-7f3a.42" } });
    expect(kept.headers["x-request-id"]).toBe("lb-7f3a.42");
    await kept.body.dump();
    const hostile = await request(`${base}/hello`, {
      headers: { "x-request-id": `<script>${"x".repeat(200)}` },
    });
    expect(hostile.headers["x-request-id"]).toMatch(/^generated-\d+$/);
    await hostile.body.dump();
  });

  it("never logs the webhook secret or a query string; probes log at debug", async () => {
    const res = await request(`${base}/webhooks/insight/${SECRET}?token=abc`, { method: "POST", body: "{}" });
    const id = res.headers["x-request-id"];
    await res.body.dump();
    const line = await waitForLine((l) => l.msg === "request" && l.reqId === id);
    expect(line.path).toBe("/webhooks/insight/[redacted]");
    expect(JSON.stringify(lines)).not.toContain(SECRET);
    expect(JSON.stringify(lines)).not.toContain("token=abc");
    const probe = await request(`${base}/healthz`);
    const probeId = probe.headers["x-request-id"];
    await probe.body.dump();
    expect((await waitForLine((l) => l.reqId === probeId && l.msg === "request")).level).toBe(20);
  });

  it("loggedPath strips the query and the secret only", () => {
    expect(loggedPath("/webhooks/insight/abc?x=1")).toBe("/webhooks/insight/[redacted]");
    expect(loggedPath("/slack/events")).toBe("/slack/events");
    expect(loggedPath("/admin/queues/api/queues?activeQueue=x")).toBe("/admin/queues/api/queues");
  });
});
