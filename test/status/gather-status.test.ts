import { singleWorkspaceServices } from "../../src/compose/workspace-services.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { SEED, startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { silentLogger } from "../../src/log.js";
import { buildServices, closeServices } from "../../src/compose/build-services.js";
import { statusDeps } from "../../src/compose/narrow-deps.js";
import { INSIGHT_UNAUTHORIZED } from "../../src/ops/incidents.js";
import { gatherStatus } from "../../src/status/gather-status.js";
import { Spool } from "../../src/webhooks/spool.js";
import { freePort } from "../helpers/global-redis.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { waitUntil } from "../reconcile/support.js";

describe("gatherStatus", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SEED.groups.support);
  });
  afterAll(async () => h?.stop());

  it("reports deliveries per type, dead letters, spool, queues, the API and paused subscriptions", async () => {
    await h.emulator.createThread(SEED.groups.support, {
      title: "Status check thread",
      sentiment: "neutral",
    });
    await h.slack.waitFor(() => h.slack.messages(TEST_CHANNEL)[0]);
    expect((await h.deliver("{not json")).status).toBe(200);
    // Kept as a dead letter by the intake pump once it has classified it.
    expect(await waitUntil(async () => (await h.workspace.health.deadLetterCounts()).total === 1)).toBe(true);
    new Spool(h.config.spoolDir, silentLogger).append({ receivedAt: new Date().toISOString(), body: "{}" });
    await h.workspace.subscriptions.put({
      channelId: "C0ARCHIVED",
      groupId: SEED.groups.rides,
      groupName: "Saturday Rides",
      communityId: undefined,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
      paused: { code: "is_archived", at: new Date().toISOString() },
    });

    const r = await gatherStatus(statusDeps(h.workspace));
    expect(r.redis).toEqual({ ok: true, error: undefined });
    const thread = r.deliveries?.find((d) => d.type === "chatthread-crud");
    expect(thread?.count).toBe(1);
    expect(Date.parse(thread?.lastAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect(r.deliveries?.find((d) => d.type === "chatmessage-crud")).toEqual({
      type: "chatmessage-crud",
      lastAt: undefined,
      count: 0,
    });
    expect(r.deliveries?.find((d) => d.type === "invalid")?.count).toBe(1);
    expect(r.deadLetters).toMatchObject({ total: 1, byReason: { invalid_json: 1 } });
    expect(r.spool).toBe(1);
    expect(r.queues?.map((q) => q.name)).toEqual([
      "deliveries",
      "slack-out",
      "enrich-refresh",
      "weekly",
      "reconcile",
      "digest",
      "alerts",
    ]);
    for (const q of r.queues ?? []) expect(q.failed).toBe(0);
    expect(r.api).toMatchObject({ reachable: true, keyValid: true, error: undefined, communities: 3 });
    expect(r.subscriptions?.total).toBe(2);
    expect(r.subscriptions?.paused.map((s) => s.channelId)).toEqual(["C0ARCHIVED"]);
    expect(r.silence).toMatchObject({ silent: false, since: "last-delivery" });

    // The same state two days later: thread deliveries look silent.
    const later = await gatherStatus(statusDeps(h.workspace), {
      now: new Date(Date.now() + 2 * 86_400_000),
      probeApi: false,
    });
    expect(later.silence?.silent).toBe(true);
    expect(later.api).toBeUndefined();
  });

  it("a status check closes a 401 incident at once, even one opened since this process last closed it", async () => {
    const ops = h.workspace.ops;
    await ops.insightAuthorized();
    await ops.alert(INSIGHT_UNAUTHORIZED, "opened by another process"); // as another process would
    await ops.insightAuthorized(); // a digest's lookup: within 30 s of the last close, no write
    expect(Object.keys(await ops.open())).toContain(INSIGHT_UNAUTHORIZED);
    const r = await gatherStatus(statusDeps(h.workspace));
    expect(r.api).toMatchObject({ reachable: true, keyValid: true });
    expect(Object.keys(await ops.open())).not.toContain(INSIGHT_UNAUTHORIZED);
  });

  it("a workspace not connected yet is said so, and nothing is asked of a service it does not have", async () => {
    let asked = 0;
    const r = await gatherStatus({
      ...statusDeps(h.workspace),
      insightConnected: () => false,
      insight: {
        listCommunities: () => {
          asked++;
          return Promise.resolve([]);
        },
      },
    });
    expect(asked).toBe(0);
    expect(r.insightNotConnected).toBe(true);
    expect(r.api).toBeUndefined();
    expect((await gatherStatus(statusDeps(h.workspace))).insightNotConnected).toBeUndefined();
  });

  it("an unreachable service is reported, not thrown", async () => {
    h.emulator.faults.set({ serverError: { count: 5, status: 503 } });
    try {
      const r = await gatherStatus(statusDeps(h.workspace));
      expect(r.api).toMatchObject({ reachable: false, keyValid: undefined, error: "server_error" });
    } finally {
      h.emulator.faults.clear();
    }
  });
});

describe("gatherStatus with Redis down", () => {
  let emulator: Emulator;
  let spoolDir: string;
  beforeAll(async () => {
    emulator = await startEmulator();
    spoolDir = mkdtempSync(join(tmpdir(), "status-spool-"));
  });
  afterAll(async () => {
    await emulator?.close();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it("says Redis did not answer and still reports the API and the spool", async () => {
    const parsed = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-test-0000",
      SLACK_SIGNING_SECRET: "secret",
      INSIGHT_BASE_URL: emulator.baseUrl,
      INSIGHT_API_KEY: emulator.apiKey,
      WEBHOOK_SECRET: "status-test-secret-0123",
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      SPOOL_DIR: spoolDir,
    });
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    const services = buildServices(parsed.config, silentLogger);
    try {
      const r = await gatherStatus(statusDeps(singleWorkspaceServices(services)), { redisTimeoutMs: 500 });
      expect(r.redis.ok).toBe(false);
      expect(r.redis.error).toBeTruthy();
      expect(r.deliveries).toBeUndefined();
      expect(r.queues).toBeUndefined();
      expect(r.subscriptions).toBeUndefined();
      expect(r.spool).toBe(0);
      expect(r.api).toMatchObject({ reachable: true, keyValid: true });
    } finally {
      await closeServices(services);
    }
  });
});
