import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { DIGEST_EVENT_TYPE } from "../../src/slack/outbound/slack-sender.js";
import {
  digestsOf,
  messageText,
  spawnAppProcess,
  startHarness,
  TEST_CHANNEL,
  TEST_SIGNING_SECRET,
  type Harness,
} from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { follow, waitUntil } from "../reconcile/support.js";
import { postSigned, slashCommandBody } from "../helpers/slack-signing.js";

const GROUP = SEED.groups.support;

function threadEvent(threadId: string, timestamp: string, extra: Record<string, unknown> = {}) {
  return {
    webhookType: "chatthread-crud",
    actionType: "created",
    payload: {
      communityId: SEED.communities.primary,
      timestamp,
      threadId,
      groupId: GROUP,
      groupName: "Lumen DB Support",
      title: `Thread ${threadId}`,
      summary: "A summary.",
      participantCount: 2,
      messageCount: 4,
      ...extra,
    },
  };
}

describe("receiver: answers decided by cheap checks, bad input kept", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("a wrong or missing secret gets 404 and records nothing", async () => {
    const before = await h.workspace.health.deliveryCounts();
    const wrong = await h.deliver(threadEvent("t-wrong", new Date().toISOString()), {
      secret: "not-the-secret-at-all",
    });
    expect(wrong.status).toBe(404);
    const { request } = await import("undici");
    const missing = await request(`${h.baseUrl}/webhooks/insight/`, { method: "POST", body: "{}" });
    expect(missing.statusCode).toBe(404);
    await missing.body.dump();
    expect(await h.workspace.health.deliveryCounts()).toEqual(before);
  });

  it("invalid JSON, unknown types and invalid payloads get 200 and are kept as dead letters", async () => {
    const garbage = await h.deliver("{not json");
    const unknown = await h.deliver({
      webhookType: "member-crud",
      actionType: "created",
      payload: { communityId: "c", timestamp: new Date().toISOString() },
    });
    const invalid = await h.deliver({
      webhookType: "chatthread-crud",
      actionType: "created",
      payload: { communityId: "c", timestamp: "yesterday", groupId: GROUP },
    });
    for (const r of [garbage, unknown, invalid]) expect(r.status).toBe(200);
    // Recorded as received; the intake pump classifies them and keeps them as dead letters.
    expect(JSON.parse(unknown.body)).toMatchObject({ outcome: "recorded" });
    expect(await waitUntil(async () => (await h.workspace.health.deadLetterCounts()).total >= 3)).toBe(true);
    const letters = await h.workspace.health.deadLetters(10);
    expect(letters.map((l) => l.reason).sort()).toEqual(["invalid_json", "invalid_payload", "unknown_type"]);
    expect(letters.find((l) => l.reason === "invalid_json")?.body).toBe("{not json");
    const counts = await h.workspace.health.deadLetterCounts();
    expect(counts.total).toBe(3);
  });

  it("a body declared larger than 1 MiB is refused with 413 before it is read", async () => {
    const { request } = await import("undici");
    const res = await request(h.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(2 * 1024 * 1024) },
      body: "x".repeat(2 * 1024 * 1024),
    }).catch((e: unknown) => ({ statusCode: 0, error: e }));
    // Either the 413 arrives, or the socket is cut after it; never a 2xx.
    expect([0, 413]).toContain(res.statusCode);
  });

  it("forged and stale Slack signatures get 401", async () => {
    const body = slashCommandBody({ text: "help" });
    const forged = await postSigned(
      `${h.baseUrl}/slack/events`,
      "a-different-secret",
      body,
      "application/x-www-form-urlencoded",
    );
    expect(forged.status).toBe(401);
    const stale = await postSigned(
      `${h.baseUrl}/slack/events`,
      TEST_SIGNING_SECRET,
      body,
      "application/x-www-form-urlencoded",
      {
        timestamp: Math.floor(Date.now() / 1000) - 600,
      },
    );
    expect(stale.status).toBe(401);
    const good = await postSigned(
      `${h.baseUrl}/slack/events`,
      TEST_SIGNING_SECRET,
      body,
      "application/x-www-form-urlencoded",
    );
    expect(good.status).toBe(200);
  });
});

describe("Redis stopped while deliveries arrive", () => {
  let redis: OwnRedis;
  let h: Harness;
  beforeAll(async () => {
    redis = await startOwnRedis();
    h = await startHarness({ redisUrl: redis.url });
    await h.subscribe(GROUP);
  });
  afterAll(async () => {
    await h?.stop();
    await redis?.close();
  });

  it("answers every delivery 2xx from the spool and posts each digest once after Redis returns", async () => {
    await redis.stop();
    const ids = Array.from({ length: 12 }, (_, i) => `outage-${i}`);
    const answers = await Promise.all(
      ids.map((id, i) => h.deliver(threadEvent(id, new Date(Date.now() + i).toISOString()))),
    );
    expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
    expect(answers.every((a) => JSON.parse(a.body).outcome === "spooled")).toBe(true);
    // A repeat of one spooled delivery, also while Redis is down.
    await h.deliver(threadEvent(ids[0] ?? "", new Date(Date.now()).toISOString()));

    await redis.start();
    for (const id of ids) {
      await h.slack.waitFor(() => digestsOf(h, id)[0], { timeoutMs: 20_000 });
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const id of ids) expect(digestsOf(h, id)).toHaveLength(1);
  }, 60_000);
});

describe("a worker dies mid-job", () => {
  let h: Harness;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    h = await startHarness({ env: { ROLE: "web" } });
    // No worker in this process: subscribe through the store directly.
    await follow(h, GROUP);
  });
  afterEach(() => {
    for (const c of children) c.kill("SIGKILL");
  });
  afterAll(async () => {
    await h?.stop();
  });

  const startWorker = async () => {
    const child = await spawnAppProcess(h, "worker");
    children.push(child);
    return child;
  };

  it("SIGKILL while the Slack post is in flight: the digest still arrives, once", async () => {
    const first = await startWorker();
    h.slack.fail.hang("chat.postMessage", { count: 1 });
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Killed mid-post",
      sentiment: "neutral",
    });
    await h.slack.waitFor(
      () => h.slack.calls.find((c) => c.method === "chat.postMessage" && c.error === "hang"),
      {
        timeoutMs: 15_000,
      },
    );
    first.kill("SIGKILL");
    await startWorker();
    const m = await h.slack.waitFor(() => digestsOf(h, thread.id)[0], { timeoutMs: 30_000 });
    expect(messageText(m)).toContain("Killed mid-post");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(digestsOf(h, thread.id)).toHaveLength(1);
  }, 60_000);
});

describe("a post that went through before its worker died", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(GROUP);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("is found again by its metadata and edited, not posted twice", async () => {
    const threadId = "thread-posted-before-crash";
    // What a crashed attempt leaves: the posting marker in Redis and the message in Slack, no ref.
    await h.workspace.refs.markPosting(TEST_CHANNEL, threadId, new Date(Date.now() - 1_000));
    const ts = await h.workspace.sender.post({
      channel: TEST_CHANNEL,
      text: "first attempt",
      metadata: { event_type: DIGEST_EVENT_TYPE, event_payload: { thread_id: threadId, group_id: GROUP } },
    });
    await h.deliver(threadEvent(threadId, new Date().toISOString(), { title: "Recovered thread" }));
    const m = await h.slack.waitFor(() => digestsOf(h, threadId).find((x) => x.updates >= 1), {
      timeoutMs: 10_000,
    });
    expect(m.ts).toBe(ts);
    expect(messageText(m)).toContain("Recovered thread");
    expect(digestsOf(h, threadId)).toHaveLength(1);
    // The ref is written just after chat.update answers: wait for it rather than race it.
    let ref = await h.workspace.refs.get(TEST_CHANNEL, threadId);
    for (let i = 0; i < 50 && ref?.ts !== ts; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ref = await h.workspace.refs.get(TEST_CHANNEL, threadId);
    }
    expect(ref?.ts).toBe(ts);
    expect(await h.workspace.refs.postingSince(TEST_CHANNEL, threadId)).toBeUndefined();
  });

  it("a first post leaves no posting mark behind once its card is recorded", async () => {
    const threadId = "thread-first-post";
    await h.deliver(threadEvent(threadId, new Date().toISOString(), { title: "Fresh thread" }));
    await h.slack.waitFor(() => digestsOf(h, threadId)[0], { timeoutMs: 10_000 });
    let ref = await h.workspace.refs.get(TEST_CHANNEL, threadId);
    for (let i = 0; i < 50 && !ref; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ref = await h.workspace.refs.get(TEST_CHANNEL, threadId);
    }
    expect(ref?.ts).toBe(digestsOf(h, threadId)[0]?.ts);
    expect(await h.workspace.refs.postingSince(TEST_CHANNEL, threadId)).toBeUndefined();
  });
});
