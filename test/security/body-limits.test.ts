import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHarness, TEST_WEBHOOK_SECRET, type Harness } from "../helpers/app-harness.js";
import { rawPost } from "./raw-http.js";

const MiB = 1024 * 1024;

describe("oversized bodies are refused before they are read whole", () => {
  let h: Harness;
  let port = 0;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
    port = h.running.port ?? 0;
  });
  afterAll(async () => {
    // Bolt answers an oversized /slack/events request 413 but keeps the half-read connection
    // open, and RunningRoles.stop() waits for server.close() before closing connections, so
    // stop() would wait for the client (reported to the lead; cut them here).
    h?.running.server?.closeAllConnections();
    await h?.stop();
  });

  it("webhook: a declared 50 MiB body gets 413 before any of it is sent", async () => {
    const r = await rawPost({
      port,
      path: `/webhooks/insight/${TEST_WEBHOOK_SECRET}`,
      headers: { "content-type": "application/json", "content-length": String(50 * MiB) },
      bodyBytes: 50 * MiB,
      chunkPauseMs: 20,
    });
    expect(r.status).toBe(413);
    expect(r.bodyBytesWritten).toBeLessThan(1 * MiB);
    expect((await h.workspace.health.deliveryCounts()).invalid ?? 0).toBe(0);
  });

  // Regression (fixed in a65f6e3): body-parser used to defer the 413 until the whole chunked
  // body had been read and discarded, so the answer waited for all 64 MiB.
  it("webhook: a chunked body with no length is cut off soon after 1 MiB", async () => {
    const r = await rawPost({
      port,
      path: `/webhooks/insight/${TEST_WEBHOOK_SECRET}`,
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      bodyBytes: 64 * MiB,
      chunkPauseMs: 2,
    });
    expect([0, 413]).toContain(r.status);
    expect(r.bodyBytesWritten).toBeLessThan(8 * MiB);
  });

  it("webhook: a wrong secret is answered 404 without reading a large body", async () => {
    const r = await rawPost({
      port,
      path: "/webhooks/insight/not-the-secret-at-all",
      headers: { "content-type": "application/json", "content-length": String(50 * MiB) },
      bodyBytes: 50 * MiB,
      chunkPauseMs: 20,
    });
    expect(r.status).toBe(404);
    expect(r.bodyBytesWritten).toBeLessThan(1 * MiB);
  });

  it("/slack/events: a declared 50 MiB body is refused without reading it whole", async () => {
    const r = await rawPost({
      port,
      path: "/slack/events",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(50 * MiB) },
      bodyBytes: 50 * MiB,
      chunkPauseMs: 2,
      timeoutMs: 20_000,
    });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.bodyBytesWritten).toBeLessThan(8 * MiB);
  });

  it("/slack/events: a chunked body with no length is cut off too", async () => {
    const r = await rawPost({
      port,
      path: "/slack/events",
      headers: { "content-type": "application/x-www-form-urlencoded", "transfer-encoding": "chunked" },
      bodyBytes: 64 * MiB,
      chunkPauseMs: 2,
      timeoutMs: 20_000,
    });
    expect(r.status === 0 || r.status >= 400).toBe(true);
    expect(r.bodyBytesWritten).toBeLessThan(8 * MiB);
  });
});
