import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { startSlackStandIn, type SlackStandIn } from "../../dev/slack-standin/server.js";
import { clusterAvailable, startTestCluster, type LocalRedisCluster } from "../helpers/redis-cluster.js";

const TSX = resolve("node_modules/.bin/tsx");
const DOCTOR = resolve("src/doctor.ts");
const TOKEN = "xoxb-doctor-cluster-token-0123";

/** Runs `npm run doctor`'s script in a directory of its own (so no developer .env is read). */
function doctor(env: Record<string, string>, cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      TSX,
      [DOCTOR],
      { cwd, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8", timeout: 30_000 },
      (err, stdout, stderr) => {
        done({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, out: stdout + stderr });
      },
    );
  });
}

describe.runIf(clusterAvailable)("npm run doctor in cluster mode", () => {
  let c: LocalRedisCluster;
  let emulator: Emulator;
  let slack: SlackStandIn;
  let cwd: string;
  let base: Record<string, string>;
  beforeAll(async () => {
    [c, emulator, slack] = await Promise.all([
      startTestCluster(),
      startEmulator(),
      startSlackStandIn({ botToken: TOKEN }),
    ]);
    cwd = mkdtempSync(join(tmpdir(), "insight-relay-doctor-cluster-"));
    base = {
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: "doctor-signing-secret-cdef",
      SLACK_API_URL: slack.url,
      INSIGHT_BASE_URL: emulator.baseUrl,
      INSIGHT_API_KEY: emulator.apiKey,
      WEBHOOK_SECRET: "doctor-webhook-secret-0123456789",
      REDIS_URL: "redis://127.0.0.1:6379",
    };
  }, 60_000);
  afterAll(async () => {
    await emulator?.close();
    await slack?.close();
    await c?.close();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it("with REDIS_CLUSTER_NODES: the cluster answers, its masters and replicas are counted; exit 0", async () => {
    const r = await doctor({ ...base, REDIS_CLUSTER_NODES: c.seeds }, cwd);
    expect(r.out).toMatch(
      /^ok {4}Redis: Redis Cluster at 127\.0\.0\.1:\d+.* answers: 3 masters, 3 replicas, every slot served \(Redis \d+\.\d+/m,
    );
    expect(r.code).toBe(0);
  }, 60_000);

  it("REDIS_URL at one cluster node without REDIS_CLUSTER_NODES: one FAIL line saying what to set; exit 1", async () => {
    const [port] = await c.masters();
    const r = await doctor({ ...base, REDIS_URL: `redis://127.0.0.1:${port}` }, cwd);
    expect(r.out).toMatch(
      /^FAIL {2}Redis: redis:\/\/127\.0\.0\.1:\d+ is a node of a Redis Cluster: set REDIS_CLUSTER_NODES/m,
    );
    expect(r.code).toBe(1);
  }, 60_000);

  it("seeds that do not answer: one FAIL line; exit 1", async () => {
    const r = await doctor({ ...base, REDIS_CLUSTER_NODES: "127.0.0.1:1,127.0.0.1:2" }, cwd);
    expect(r.out).toMatch(
      /^FAIL {2}Redis: the Redis Cluster at 127\.0\.0\.1:1,127\.0\.0\.1:2 does not answer/m,
    );
    expect(r.code).toBe(1);
  }, 60_000);
});
