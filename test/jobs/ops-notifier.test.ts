import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OpsNotifier } from "../../src/ops/ops-notifier.js";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import { silentLogger } from "../../src/log.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import { createRedis } from "../../src/store/redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";

const OPS = "C0OPS";
const TEXT = ":warning: The Insight Service rejected the API key (401).";

describe("OpsNotifier", () => {
  let redis: Redis;
  let prefix: string;
  let keys: StateKeys;
  let queues: Queues;
  let clock: number;
  const now = () => new Date(clock);

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => {
    redis.disconnect();
  });
  beforeEach(() => {
    prefix = uniquePrefix("ops");
    keys = stateKeys(prefix);
    queues = createQueues(redis, prefix);
    clock = Date.parse("2025-03-05T18:00:00.000Z");
  });
  afterEach(async () => {
    await queues.close();
    await dropPrefix(prefix);
  });

  const notices = async () =>
    (await queues.slack.getJobs(["waiting", "delayed"], 0, -1, true)).map((j) => j.data);

  it("alerts once per incident within the window: two alerts -> one notice job", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    expect(await ops.alert("insight-unauthorized", TEXT)).toBe(true);
    clock += 60_000;
    expect(await ops.alert("insight-unauthorized", "a second wording")).toBe(false);
    expect(await notices()).toEqual([{ kind: "notice", channelId: OPS, text: TEXT }]);
    expect(await ops.open()).toEqual({
      "insight-unauthorized": { at: "2025-03-05T18:00:00.000Z", text: TEXT },
    });
  });

  it("different incidents alert independently", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    await ops.alert("insight-unauthorized", TEXT);
    expect(await ops.alert("slack-token-revoked", "Slack revoked the bot token.")).toBe(true);
    expect((await notices()).map((n) => (n.kind === "notice" ? n.text : ""))).toEqual([
      TEXT,
      "Slack revoked the bot token.",
    ]);
    expect(Object.keys(await ops.open()).sort()).toEqual(["insight-unauthorized", "slack-token-revoked"]);
  });

  it("an incident still open after its window alerts again (default 6 h)", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    await ops.alert("insight-unauthorized", TEXT);
    clock += 6 * 3_600_000 - 1;
    expect(await ops.alert("insight-unauthorized", TEXT)).toBe(false);
    clock += 1;
    expect(await ops.alert("insight-unauthorized", "still failing")).toBe(true);
    expect(await notices()).toHaveLength(2);
    expect((await ops.open())["insight-unauthorized"]).toEqual({
      at: "2025-03-06T00:00:00.000Z",
      text: "still failing",
    });
  });

  it("a custom window applies", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    await ops.alert("spool-growing", "x", { windowSeconds: 60 });
    clock += 30_000;
    expect(await ops.alert("spool-growing", "x", { windowSeconds: 60 })).toBe(false);
    clock += 30_000;
    expect(await ops.alert("spool-growing", "x", { windowSeconds: 60 })).toBe(true);
  });

  it("resolve closes the incident, says so, and re-arms the alert", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    await ops.alert("insight-unauthorized", TEXT);
    clock += 1_000;
    expect(await ops.resolve("insight-unauthorized", "The Insight Service accepts the API key again.")).toBe(
      true,
    );
    expect(await ops.open()).toEqual({});
    clock += 1_000;
    expect(await ops.alert("insight-unauthorized", TEXT)).toBe(true);
    expect((await notices()).map((n) => (n.kind === "notice" ? n.text : ""))).toEqual([
      TEXT,
      "The Insight Service accepts the API key again.",
      TEXT,
    ]);
  });

  it("resolving an incident that is not open does nothing", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    expect(await ops.resolve("insight-unauthorized", "all good")).toBe(false);
    expect(await notices()).toEqual([]);
  });

  it("resolve without text closes silently", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    await ops.alert("insight-unauthorized", TEXT);
    expect(await ops.resolve("insight-unauthorized")).toBe(true);
    expect(await notices()).toHaveLength(1);
  });

  it("with no ops channel nothing is enqueued, but incidents are still tracked and deduplicated", async () => {
    const ops = new OpsNotifier(redis, keys, () => queues.slack, undefined, silentLogger, now);
    expect(await ops.alert("insight-unauthorized", TEXT)).toBe(true);
    expect(await ops.alert("insight-unauthorized", TEXT)).toBe(false);
    expect(await ops.resolve("insight-unauthorized", "fixed")).toBe(true);
    expect(await queues.slack.getJobCounts("waiting", "delayed")).toEqual({ waiting: 0, delayed: 0 });
  });

  it("two processes sharing Redis alert once between them", async () => {
    const a = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    const b = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    const results = await Promise.all([
      a.alert("insight-unauthorized", TEXT),
      b.alert("insight-unauthorized", TEXT),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await notices()).toHaveLength(1);
  });

  it("a success closes the 401 incident at once after this process saw the 401, else once per 30 s; a status check at once", async () => {
    // Two processes: `b` sees the 401, `a` keeps answering digests from its lookups.
    const a = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    const b = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    const open = async () => Object.keys(await a.open());
    await a.insightAuthorized(); // a's first success checks (nothing open)
    await b.insightUnauthorized();
    expect(await open()).toEqual(["insight-unauthorized"]);

    clock += 1_000;
    await a.insightAuthorized(); // a cleared 1 s ago and saw no 401: no write per digest
    expect(await open()).toEqual(["insight-unauthorized"]);
    clock += 29_000;
    await a.insightAuthorized(); // 30 s on: a clears what another process opened
    expect(await open()).toEqual([]);

    await b.insightUnauthorized();
    clock += 1_000;
    await a.insightAuthorized({ force: true }); // `/insight status` asked
    expect(await open()).toEqual([]);

    await b.insightUnauthorized();
    clock += 1_000;
    await b.insightAuthorized(); // the process that saw the 401 clears at its next success
    expect(await open()).toEqual([]);
    const texts = (await notices()).map((n) => (n.kind === "notice" ? n.text : ""));
    expect(texts.filter((t) => t.includes("accepts the API key again"))).toHaveLength(3);
  });

  it("a success that comes while a 401 is being recorded does not leave the incident open for 30 s", async () => {
    const a = new OpsNotifier(redis, keys, () => queues.slack, OPS, silentLogger, now);
    // The success's HDEL reaches Redis before the 401's HSETNX opens the incident.
    const refusing = a.insightUnauthorized();
    await a.insightAuthorized();
    await refusing;
    expect(Object.keys(await a.open())).toEqual(["insight-unauthorized"]);
    clock += 1_000;
    await a.insightAuthorized();
    expect(await a.open()).toEqual({});
  });

  it("a close that failed is tried again at the next success", async () => {
    class OnceFailing extends OpsNotifier {
      failNext = false;
      override async resolve(incident: string, text?: string): Promise<boolean> {
        if (this.failNext) {
          this.failNext = false;
          throw new Error("Redis did not answer");
        }
        return super.resolve(incident, text);
      }
    }
    const a = new OnceFailing(redis, keys, () => queues.slack, OPS, silentLogger, now);
    await a.insightUnauthorized();
    a.failNext = true;
    await expect(a.insightAuthorized()).rejects.toThrow("Redis did not answer");
    clock += 1_000;
    await a.insightAuthorized();
    expect(await a.open()).toEqual({});
  });
});

describe("OpsNotifier when Redis will not take an alert (maxmemory reached)", () => {
  let own: OwnRedis;
  let redis: Redis;
  let admin: Redis;
  let queues: Queues;
  const keys = stateKeys("oom");
  beforeAll(async () => {
    own = await startOwnRedis();
    redis = createRedis(own.url, "shared", silentLogger);
    admin = createRedis(own.url, "shared", silentLogger);
    queues = createQueues(redis, "oom");
    await queues.slack.waitUntilReady();
  });
  afterAll(async () => {
    await queues.close().catch(() => undefined);
    redis.disconnect();
    admin.disconnect();
    await own.close();
  });

  it("posts straight to the ops channel, once per incident, and says when it is over", async () => {
    const direct: string[] = [];
    const ops = new OpsNotifier(
      redis,
      keys,
      () => queues.slack,
      OPS,
      silentLogger,
      undefined,
      async (channel, text) => {
        direct.push(`${channel} ${text}`);
      },
    );
    const used = Number(/used_memory:(\d+)/.exec(await admin.info("memory"))?.[1] ?? 0);
    await admin.config("SET", "maxmemory", String(used - 100_000));
    try {
      expect(await ops.alert("workers-cannot-fetch", "Redis is out of memory.")).toBe(true);
      expect(await ops.alert("workers-cannot-fetch", "Redis is out of memory.")).toBe(false);
      expect(direct).toEqual([`${OPS} Redis is out of memory.`]);
      // Still refusing: the end of it goes the same way.
      expect(await ops.resolve("workers-cannot-fetch", "Workers fetch jobs again.")).toBe(true);
      expect(direct).toEqual([`${OPS} Redis is out of memory.`, `${OPS} Workers fetch jobs again.`]);
      expect(await ops.alert("workers-cannot-fetch", "Redis is out of memory.")).toBe(true);
    } finally {
      await admin.config("SET", "maxmemory", "0");
    }
    // Redis takes writes again: the end goes through the queue, as every notice does.
    expect(await ops.resolve("workers-cannot-fetch", "Workers fetch jobs again.")).toBe(true);
    expect(direct).toHaveLength(3);
    const queued = await queues.slack.getJobs(["waiting", "delayed"], 0, -1, true);
    expect(queued.map((j) => j.data)).toEqual([
      { kind: "notice", channelId: OPS, text: "Workers fetch jobs again." },
    ]);
  }, 30_000);
});
