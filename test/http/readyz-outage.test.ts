import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { startHarness, type Harness } from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";

// The idle threshold is injected (1 s instead of a minute): what the minute changes is only
// that the worker probe starts asking Redis for the waiting count, which this exercises.
describe("/readyz and /metrics while Redis is gone, after the app sat idle past the idle threshold", () => {
  let own: OwnRedis;
  let h: Harness;
  beforeAll(async () => {
    own = await startOwnRedis();
    h = await startHarness({ redisUrl: own.url, registerWebhook: false, tuning: { stuckAfterMs: 1_000 } });
  });
  afterAll(async () => {
    await h?.stop();
    await own?.close();
  });

  const timed = async (path: string) => {
    const t = performance.now();
    const res = await request(`${h.baseUrl}${path}`, { headersTimeout: 3_000, bodyTimeout: 3_000 });
    const body = await res.body.text();
    return { status: res.statusCode, body, ms: performance.now() - t };
  };

  it("answers 503 with the reason within a second, three times in a row, and /metrics too", async () => {
    expect((await timed("/readyz")).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_500)); // idle past the threshold
    await own.stop();
    for (let i = 0; i < 3; i++) {
      const r = await timed("/readyz");
      expect(r.status).toBe(503);
      expect(r.ms).toBeLessThan(1_000);
      expect(JSON.parse(r.body)).toMatchObject({ ok: false });
    }
    const m = await timed("/metrics");
    expect(m.status).toBe(200);
    expect(m.ms).toBeLessThan(1_000);
    await own.start();
    const end = Date.now() + 15_000;
    let last = 0;
    while (Date.now() < end && (last = (await timed("/readyz")).status) !== 200) {
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(last, (await timed("/readyz")).body).toBe(200);
  }, 40_000);
});
