import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageEvent, SEED } from "../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { parseMetrics, scrape, value, type Sample } from "./scrape.js";

const GROUP = SEED.groups.support;
const P = "insight_relay_";

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("/metrics after real traffic", () => {
  let h: Harness;
  let samples: Sample[];
  let contentType: string;

  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(GROUP);
    // One 429 from the service and one from Slack, so failed outcomes show too. Slack's asks for
    // longer than a wait slept in place (wait-in-place.ts): the card goes through slack-out.
    h.emulator.faults.set({ rateLimit: { count: 1, retryAfterSeconds: 0 }, path: /displaychatthread/ });
    h.slack.fail.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 2 });
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Metrics thread",
      summary: "A thread to count.",
      sentiment: "positive",
    });
    await h.slack.waitFor(() =>
      h.slack.messages(TEST_CHANNEL).find((m) => JSON.stringify(m).includes(thread.id)),
    );
    // The same delivery twice (a group nobody follows, so nothing is posted and no job is made),
    // a body that is not JSON and a well-formed envelope of an unknown type.
    const envelope = {
      webhookType: "chatthread-crud",
      actionType: "updated",
      payload: {
        communityId: SEED.communities.secondary,
        timestamp: "2026-11-20T10:00:00.000Z",
        threadId: "0123456789abcdef01234567",
        groupId: SEED.groups.rides,
        groupName: "Saturday Rides",
        title: "Route for Saturday",
        summary: "x",
        participantCount: 2,
        messageCount: 3,
      },
    };
    // Both are acknowledged as recorded; the intake pump finds the second a repeat.
    expect(JSON.parse((await h.deliver(envelope)).body)).toMatchObject({ outcome: "recorded" });
    expect(JSON.parse((await h.deliver(envelope)).body)).toMatchObject({ outcome: "recorded" });
    await h.deliver("this is not json");
    await h.deliver({ webhookType: "chatgroup-crud", actionType: "created", payload: {} });
    const threadId = h.emulator.store.threads(GROUP)[0]?.id ?? "";
    await h.emulator.postMessage(GROUP, threadId, { messageText: "counted" });
    ({ samples, contentType } = await until(async () => {
      const s = await scrape(h.baseUrl);
      const jobs = (queue: string) =>
        value(s.samples, `${P}jobs_total`, { queue, outcome: "completed" }) ?? 0;
      const dropped = value(s.samples, `${P}unfollowed_deliveries_total`) ?? 0;
      const deadLetters = value(s.samples, `${P}dead_letters_total`) ?? 0;
      return jobs("slack-out") >= 1 && jobs("deliveries") >= 2 && dropped >= 1 && deadLetters >= 2
        ? s
        : undefined;
    }));
  }, 60_000);
  afterAll(async () => {
    await h?.stop();
  });

  it("answers in the Prometheus text format", () => {
    expect(contentType).toMatch(/^text\/plain;/);
    expect(contentType).toContain("version=0.0.4");
    expect(samples.length).toBeGreaterThan(20);
    // Default process metrics, under the app's prefix.
    expect(value(samples, `${P}process_cpu_user_seconds_total`)).toBeGreaterThan(0);
  });

  it("counts deliveries by type and outcome, as the intake pump classifies them", () => {
    const d = `${P}webhook_deliveries_total`;
    expect(value(samples, d, { type: "chatthread-crud", outcome: "queued" })).toBeGreaterThanOrEqual(2);
    expect(value(samples, d, { type: "chatmessage-crud", outcome: "queued" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, d, { type: "chatthread-crud", outcome: "duplicate" })).toBe(1);
    expect(value(samples, d, { type: "other", outcome: "dead_letter" })).toBeGreaterThanOrEqual(2);
  });

  it("counts acknowledgements, and has an ack latency histogram with every one of them in it", () => {
    const count = value(samples, `${P}webhook_ack_seconds_count`) ?? 0;
    const acked = value(samples, `${P}webhook_acks_total`, { outcome: "recorded" }) ?? 0;
    // Every delivery the pump classified was acknowledged first, and recorded (Redis was up).
    const classified = value(samples, `${P}webhook_deliveries_total`) ?? 0;
    expect(acked).toBeGreaterThanOrEqual(5);
    expect(classified).toBe(acked);
    expect(value(samples, `${P}webhook_acks_total`, { outcome: "spooled" }) ?? 0).toBe(0);
    expect(count).toBe(acked);
    expect(value(samples, `${P}webhook_ack_seconds_bucket`, { le: "+Inf" })).toBe(count);
    expect(value(samples, `${P}webhook_ack_seconds_sum`)).toBeGreaterThan(0);
  });

  it("counts dead letters by reason", () => {
    expect(value(samples, `${P}dead_letters_total`, { reason: "invalid_json" })).toBe(1);
    const all = samples.filter((s) => s.name === `${P}dead_letters_total`);
    expect(all.reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(2);
  });

  it("reports queue depths of every queue by state", () => {
    for (const queue of ["deliveries", "slack-out", "enrich-refresh"]) {
      for (const state of ["waiting", "active", "delayed", "failed"]) {
        expect(
          value(samples, `${P}queue_jobs`, { queue, state }),
          `${queue}/${state}`,
        ).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("counts Slack API calls by method and outcome", () => {
    const s = `${P}slack_api_calls_total`;
    expect(value(samples, s, { method: "chat.postMessage", outcome: "ok" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, s, { method: "chat.postMessage", outcome: "ratelimited" })).toBe(1);
  });

  it("counts Insight API calls by endpoint and status", () => {
    const i = `${P}insight_api_calls_total`;
    expect(
      value(samples, i, { endpoint: "chatgroup/:id/displaychatthread", status: "200" }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(samples, i, { endpoint: "chatgroup/:id/displaychatthread", status: "429" })).toBe(1);
    // Labels are templates: no id ever becomes a series.
    for (const s of samples.filter((x) => x.name === i))
      expect(s.labels.endpoint).not.toMatch(/[0-9a-f]{24}/);
  });

  it("reports the spool size (empty while Redis answers)", () => {
    expect(value(samples, `${P}spool_deliveries`)).toBe(0);
  });

  it("counts deliveries of a group nobody follows, dropped before they became jobs", () => {
    expect(value(samples, `${P}unfollowed_deliveries_total`)).toBe(1);
  });

  it("counts finished jobs by queue and outcome", () => {
    expect(
      value(samples, `${P}jobs_total`, { queue: "deliveries", outcome: "completed" }),
    ).toBeGreaterThanOrEqual(2);
  });
});

describe("/metrics while Redis is down", () => {
  let redis: OwnRedis;
  let h: Harness;
  beforeAll(async () => {
    redis = await startOwnRedis();
    h = await startHarness({ redisUrl: redis.url });
  });
  afterAll(async () => {
    await h?.stop().catch(() => undefined);
    await redis?.close();
  });

  it("counts spooled deliveries and the spool size, and empties it once Redis is back", async () => {
    await redis.stop();
    const group = h.emulator.store.group(GROUP);
    const threadId = h.emulator.store.threads(GROUP)[0]?.id;
    if (!group || !threadId) throw new Error("seed data changed: no support group or thread");
    const message = h.emulator.store.addMessage(GROUP, threadId, { messageText: "sent during the outage" });
    const res = await h.deliver(messageEvent("created", group, message, new Date()));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ outcome: "spooled" });
    // The scrape must answer while Redis is down: that is when the spool gauge matters.
    const down = await Promise.race([
      scrape(h.baseUrl),
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("/metrics did not answer while Redis was down")), 10_000),
      ),
    ]);
    expect(value(down.samples, `${P}webhook_acks_total`, { outcome: "spooled" })).toBe(1);
    expect(value(down.samples, `${P}spool_deliveries`)).toBeGreaterThanOrEqual(1);
    // An outage longer than the receiver's 1 s replay tick, so replays are tried while down.
    await new Promise((r) => setTimeout(r, 1_500));
    await redis.start();
    // Replayed into the intake, then classified by the pump.
    const back = await until(async () => {
      const s = await scrape(h.baseUrl);
      const queued = value(s.samples, `${P}webhook_deliveries_total`, {
        type: "chatmessage-crud",
        outcome: "queued",
      });
      return value(s.samples, `${P}spool_deliveries`) === 0 && queued === 1 ? s : undefined;
    }, 20_000).catch((e: unknown) => {
      // The app's own account of the replay is what a failure here needs.
      console.error(`app log (last 60 lines):\n${h.logLines.slice(-60).join("")}`);
      throw e;
    });
    expect(value(back.samples, `${P}spool_deliveries`)).toBe(0);
    expect(
      value(back.samples, `${P}webhook_deliveries_total`, { type: "chatmessage-crud", outcome: "queued" }),
    ).toBe(1);
    expect(value(back.samples, `${P}webhook_acks_total`, { outcome: "recorded" }) ?? 0).toBe(0);
  }, 40_000);
});

describe("parseMetrics", () => {
  it("reads names, labels with escapes and values; skips comments", () => {
    const s = parseMetrics('# HELP x y\nx_total{a="1",b="q\\"uote"} 3\ny 4.5\n');
    expect(s).toEqual([
      { name: "x_total", labels: { a: "1", b: 'q\\"uote' }, value: 3 },
      { name: "y", labels: {}, value: 4.5 },
    ]);
  });
});
