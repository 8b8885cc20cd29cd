import { Agent, request } from "undici";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { startHarness, TEST_WEBHOOK_SECRET, type Harness } from "../helpers/app-harness.js";

const event = (threadId: string) => ({
  webhookType: "chatthread-crud",
  actionType: "created",
  payload: {
    communityId: SEED.communities.primary,
    timestamp: new Date().toISOString(),
    threadId,
    groupId: SEED.groups.support,
    title: "t",
  },
});

/** Requests from another loopback address: the limiter counts per client address. */
const fromOtherAddress = new Agent({ localAddress: "127.0.0.2" });

describe("webhook secret", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterEach(async () => {
    await h?.stop();
  });
  afterAll(async () => {
    await fromOtherAddress.close();
  });

  const post = async (secret: string, body: unknown = event("t1"), dispatcher?: Agent) => {
    const res = await request(`${h.baseUrl}/webhooks/insight/${secret}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      ...(dispatcher ? { dispatcher } : {}),
    });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };

  it("any wrong secret gets 404, records nothing and is not logged", async () => {
    const wrong = [
      "not-the-secret-at-all",
      TEST_WEBHOOK_SECRET.slice(0, -1),
      `${TEST_WEBHOOK_SECRET}x`,
      TEST_WEBHOOK_SECRET.toUpperCase(),
      `${TEST_WEBHOOK_SECRET.slice(0, -1)}${TEST_WEBHOOK_SECRET.endsWith("9") ? "8" : "9"}`,
      "x".repeat(4_000),
      "%00",
      "..",
    ];
    for (const s of wrong) {
      const r = await post(encodeURIComponent(s).replace(/%25/g, "%"));
      expect({ s: s.slice(0, 40), status: r.status }).toEqual({ s: s.slice(0, 40), status: 404 });
      expect(r.body).not.toContain(TEST_WEBHOOK_SECRET);
    }
    expect(await h.workspace.health.deliveryCounts()).toEqual({});
    expect(await h.workspace.health.deadLetterCounts()).toMatchObject({ total: 0 });
    expect(await h.services.queues.deliveries.count()).toBe(0);
    const logged = h.logLines.join("");
    expect(logged).toContain("wrong secret");
    expect(logged).not.toContain("not-the-secret-at-all");
    // The right one still works.
    expect((await post(TEST_WEBHOOK_SECRET)).status).toBe(200);
  });

  it("past 30 wrong secrets a minute, that address still gets 404, a second later, on a closed connection, unlogged", async () => {
    const answers: Array<{ status: number; ms: number; connection: unknown }> = [];
    for (let i = 0; i < 32; i++) {
      const started = Date.now();
      const r = await post(`guess-${i}-abcdefghijklmnop`);
      answers.push({ status: r.status, ms: Date.now() - started, connection: r.headers.connection });
    }
    expect(answers.map((a) => a.status)).toEqual(Array(32).fill(404));
    for (const a of answers.slice(0, 30)) expect(a.connection).not.toBe("close");
    for (const a of answers.slice(30)) {
      expect(a.ms).toBeGreaterThanOrEqual(950);
      expect(a.connection).toBe("close");
    }
    const logged = h.logLines.join("");
    expect(logged.split("webhook request with a wrong secret").length - 1).toBe(30);
    expect(logged.split("are over the limit").length - 1).toBe(1);
    const metrics = await h.services.metrics.registry.getSingleMetricAsString(
      "insight_relay_webhook_wrong_secret_total",
    );
    expect(metrics).toContain('insight_relay_webhook_wrong_secret_total{limited="false"} 30');
    expect(metrics).toContain('insight_relay_webhook_wrong_secret_total{limited="true"} 2');
    // Another client address is judged on its own.
    const other = Date.now();
    expect((await post("guess-other-abcdefghijklmnop", event("t2"), fromOtherAddress)).status).toBe(404);
    expect(Date.now() - other).toBeLessThan(900);
    expect((await post(TEST_WEBHOOK_SECRET, event("t3"), fromOtherAddress)).status).toBe(200);
  });

  // Regression (fixed in a65f6e3): the limiter used to be checked before the secret. Behind a
  // proxy every request has the proxy's address, so 30 wrong guesses a minute made the real
  // deliveries fail, and one non-2xx disables the webhook upstream (rule 1).
  it("the right secret is never refused, even from an address over the limit", async () => {
    for (let i = 0; i < 31; i++) await post(`guess-${i}-abcdefghijklmnop`);
    expect((await post(TEST_WEBHOOK_SECRET, event("t4"))).status).toBe(200);
  });
});
