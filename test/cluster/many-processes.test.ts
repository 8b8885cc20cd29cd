import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { spawnAppProcess, startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { freePort } from "../helpers/global-redis.js";
import { clusterAvailable, startTestCluster, type LocalRedisCluster } from "../helpers/redis-cluster.js";
import { follow, waitUntil } from "../reconcile/support.js";
import { DigestFlow, settleFlow } from "../chaos/flow.js";

/*
 * Issue 13, "many processes": 2 web + 3 worker processes (children) and one scheduler (this
 * process), deliveries spread over both web ports by a round-robin balancer, one worker
 * SIGKILLed mid-flow and one web process restarted. Every delivery 2xx, every digest once, a
 * weekly schedule that fires every few seconds posts its week once. On one Redis and on the cluster.
 */

const WEEKLY_CHANNEL = "C0WEEKLYMP";

/** A round-robin balancer in front of the web processes; a target that refuses is skipped, as a balancer's health check would. */
async function startBalancer(
  ports: number[],
): Promise<{ server: Server; url: string; hits: Map<number, number> }> {
  const hits = new Map<number, number>();
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        for (let i = 0; i < ports.length * 2; i++) {
          const port = ports[next++ % ports.length] ?? 0;
          try {
            const r = await request(`http://127.0.0.1:${port}${req.url ?? "/"}`, {
              method: req.method === "POST" ? "POST" : "GET",
              headers: { "content-type": String(req.headers["content-type"] ?? "application/json") },
              body: req.method === "POST" ? body : null,
              headersTimeout: 5_000,
            });
            const text = await r.body.text();
            hits.set(port, (hits.get(port) ?? 0) + 1);
            res.writeHead(r.statusCode, { "content-type": "application/json" }).end(text);
            return;
          } catch {
            // that process is down: the next one
          }
        }
        res.writeHead(502).end();
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const addr = server.address();
  return { server, url: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`, hits };
}

function scenario(label: string, cluster: boolean) {
  let c: LocalRedisCluster | undefined;
  let h: Harness;
  let balancer: Awaited<ReturnType<typeof startBalancer>>;
  const children: ChildProcess[] = [];
  const webs: ChildProcess[] = [];
  const workers: ChildProcess[] = [];
  const dirs: string[] = [];
  const webPorts: number[] = [];

  const spoolOf = new Map<number, string>();
  const spawnWeb = async (port: number) => {
    // A restarted web process keeps its spool, as a restarted container keeps its volume.
    const dir = spoolOf.get(port) ?? mkdtempSync(join(tmpdir(), "insight-relay-mp-spool-"));
    spoolOf.set(port, dir);
    dirs.push(dir);
    const child = await spawnAppProcess(h, "web", { PORT: String(port), SPOOL_DIR: dir });
    children.push(child);
    webs.push(child);
    return child;
  };
  const spawnWorker = async () => {
    const child = await spawnAppProcess(h, "worker");
    children.push(child);
    workers.push(child);
    return child;
  };

  beforeAll(async () => {
    if (cluster) c = await startTestCluster();
    // This process is the scheduler; the web and worker roles run in children.
    h = await startHarness({
      env: { ROLE: "scheduler", ...(c ? { REDIS_CLUSTER_NODES: c.seeds } : {}) },
      registerWebhook: false,
    });
    await follow(h, SEED.groups.support, TEST_CHANNEL);
    await follow(h, SEED.groups.contributors, WEEKLY_CHANNEL);
    webPorts.push(await freePort());
    let second = await freePort();
    while (second === webPorts[0]) second = await freePort();
    webPorts.push(second);
    // In order, so that webs[1] is the one on webPorts[1].
    for (const p of webPorts) await spawnWeb(p);
    await Promise.all([spawnWorker(), spawnWorker(), spawnWorker()]);
    balancer = await startBalancer(webPorts);
    h.emulator.webhooks.register({
      url: `${balancer.url}/webhooks/insight/${h.config.webhookSecret}`,
      types: ["chatthread-crud", "chatmessage-crud"],
    });
  }, 90_000);
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    balancer?.server.close();
    await h?.stop();
    await c?.close();
    for (const d of new Set(dirs)) rmSync(d, { recursive: true, force: true });
  });

  it(`${label}: every delivery 2xx, every digest once, the weekly schedule posts once, through a worker kill and a web restart`, async () => {
    // A weekly schedule that fires every 5 s: each firing is the same week, so one post.
    await h.workspace.schedules.set({
      channelId: WEEKLY_CHANNEL,
      cron: "*/5 * * * * *",
      timeZone: "UTC",
      setBy: "U0ADMIN",
      setAt: new Date().toISOString(),
    });
    const flow = new DigestFlow(h, [{ groupId: SEED.groups.support, channel: TEST_CHANNEL }]);
    const started = Date.now();
    flow.start(8);
    await new Promise((r) => setTimeout(r, 3_000));
    workers[0]?.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 1_500));
    // Restart the second web process on its port (a deploy): the balancer sends to the other meanwhile.
    const web = webs[1];
    const restartAt = Date.now();
    if (web) {
      const exited = new Promise((r) => web.once("exit", r));
      web.kill("SIGTERM");
      await exited;
    }
    await spawnWeb(webPorts[1] ?? 0);
    const restartMs = Date.now() - restartAt;
    await new Promise((r) => setTimeout(r, 3_000));
    await flow.stop();
    expect(flow.errors).toEqual([]);
    const stoppedAt = Date.now();
    const v = await settleFlow(h, flow, { timeoutMs: 60_000 });
    const settleMs = Date.now() - stoppedAt - 1_500;

    const weeklyPosts = () =>
      h.slack
        .messages(WEEKLY_CHANNEL)
        .filter((m) => m.thread_ts === undefined && m.text.includes("Weekly summary")).length;
    await waitUntil(async () => weeklyPosts() > 0, 40_000);
    // Give the schedule two more firings to show a second post, if any.
    await new Promise((r) => setTimeout(r, 11_000));
    const deliveries = h.emulator.webhooks.deliveries();
    const perPort = webPorts.map((p) => balancer.hits.get(p) ?? 0);
    console.log(
      `many processes (${label}): ${deliveries.length} deliveries, ${deliveries.filter((d) => d.ok).length} 2xx, ` +
        `per web process ${perPort.join("/")}, ${v.threads} threads, ${v.threads - v.lost.length} digests final, ` +
        `${v.duplicated.length} duplicated, weekly posts ${weeklyPosts()}, web restart ${restartMs} ms, ` +
        `settled ${settleMs} ms after the flow stopped, run ${Date.now() - started} ms`,
    );
    expect(v.threads).toBeGreaterThan(40);
    expect(v.refusedDeliveries).toEqual([]);
    expect(deliveries.every((d) => d.ok)).toBe(true);
    expect(perPort.every((n) => n > 5)).toBe(true);
    expect(v.lost).toEqual([]);
    expect(v.duplicated).toEqual([]);
    expect(weeklyPosts()).toBe(1);
  }, 180_000);
}

describe("many processes on one Redis (2 web, 3 workers, 1 scheduler)", () => {
  scenario("one Redis", false);
});

describe.runIf(clusterAvailable)("many processes on a Redis Cluster (2 web, 3 workers, 1 scheduler)", () => {
  scenario("cluster", true);
});
