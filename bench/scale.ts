// bench:scale — webhook -> digest at the stand-in Slack (per-channel throttle off) on one
// Redis and on a 3-master Redis Cluster, with 1, 2 and 4 worker processes (ROLE=worker) behind
// one web process (ROLE=web), in the same run: digests/s, Redis commands per delivery, each
// master's share of keys and commands, CPU per delivery of each role, RSS.
//
//   npm run bench:scale [-- --deliveries 600 --workers 1,2,4]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { Pool } from "undici";
import { startEmulator, SEED } from "../dev/emulator/index.js";
import { startLocalRedisCluster } from "../dev/local-redis-cluster.js";
import { freePort, startThrowawayRedis } from "../dev/local-redis.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { silentLogger } from "../src/log.js";
import { stateKeys } from "../src/store/keys.js";
import { createRedis } from "../src/store/redis.js";
import { SubscriptionStore } from "../src/store/subscriptions.js";
import { commandCalls, cpuMs, rssMb, sendEnrichments, spawnReady, stopChild } from "./processes.js";

const spawnApp = (env: NodeJS.ProcessEnv) =>
  spawnReady(["test/helpers/app-process.ts"], { env, tsx: true, timeoutMs: 60_000 });

const { values: args } = parseArgs({
  options: {
    deliveries: { type: "string", default: "600" },
    workers: { type: "string", default: "1,2,4" },
  },
});
const DELIVERIES = Number(args.deliveries);
const WORKERS = (args.workers ?? "1,2,4").split(",").map(Number);
const SECRET = "bench-webhook-secret-0123456789";
const CHANNEL = "C0BENCHSCALE";
const log = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Row {
  redis: string;
  workers: number;
  digestsPerSecond: number;
  perWorkerProcess: number;
  commandsPerDelivery: number;
  keysShare: number[];
  commandsShare: number[];
  webCpuPerDelivery: number;
  workerCpuPerDelivery: number;
  webRss: number;
  workerRss: number;
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const mode of ["one Redis", "cluster 3+3"] as const) {
    const single = mode === "one Redis" ? await startThrowawayRedis() : undefined;
    const cluster = single ? undefined : await startLocalRedisCluster();
    const url = single?.url ?? "redis://127.0.0.1:6379";
    const masters = async () =>
      single ? [new Redis(single.url)] : (await cluster!.masters()).map((p) => new Redis(p, "127.0.0.1"));
    for (const n of WORKERS) {
      const prefix = `bench-scale-${n}`;
      const emulator = await startEmulator();
      const slack = await startSlackStandIn();
      const spool = mkdtempSync(join(tmpdir(), "bench-scale-spool-"));
      const app = createRedis(
        { url, clusterNodes: cluster?.nodes.map((x) => ({ host: "127.0.0.1", port: x.port })) },
        "shared",
        silentLogger,
      );
      const groupId = SEED.groups.support;
      await new SubscriptionStore(app, stateKeys(prefix, { cluster: !!cluster })).put({
        channelId: CHANNEL,
        groupId,
        groupName: "Lumen DB Support",
        communityId: SEED.communities.primary,
        filters: {},
        createdBy: "U0BENCH",
        createdAt: new Date().toISOString(),
      });
      app.disconnect();
      const group = emulator.store.group(groupId);
      if (!group) throw new Error("the emulator has no support group");
      const port = await freePort();
      const env = (role: string): NodeJS.ProcessEnv => ({
        ...process.env,
        NODE_ENV: "production",
        SLACK_BOT_TOKEN: "xoxb-bench-token",
        SLACK_SIGNING_SECRET: "bench-signing-secret",
        SLACK_API_URL: slack.url,
        INSIGHT_BASE_URL: emulator.baseUrl,
        INSIGHT_API_KEY: emulator.apiKey,
        WEBHOOK_SECRET: SECRET,
        REDIS_URL: url,
        ...(cluster ? { REDIS_CLUSTER_NODES: cluster.seeds } : {}),
        REDIS_PREFIX: prefix,
        PORT: String(port),
        ROLE: role,
        SPOOL_DIR: spool,
        LOG_LEVEL: "warn",
        TEST_TUNING: JSON.stringify({ channelGapMs: 0 }),
      });
      const web = await spawnApp(env("web"));
      const workers = await Promise.all(Array.from({ length: n }, () => spawnApp(env("worker"))));
      await sleep(1_000);
      const nodes = await masters();
      const calls0 = await Promise.all(nodes.map(async (n) => (await commandCalls(n)).all));
      const cpu0 = [web, ...workers].map((c) => cpuMs(c.pid ?? 0));
      const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 20 });
      const started = performance.now();
      await sendEnrichments({
        pool,
        path: `/webhooks/insight/${SECRET}`,
        store: emulator.store,
        group,
        n: DELIVERIES,
      });
      const deadline = performance.now() + 120_000;
      while (slack.posts().length < DELIVERIES && performance.now() < deadline) await sleep(100);
      const seconds = (performance.now() - started) / 1000;
      const posted = slack.posts().length;
      const webRss = rssMb(web.pid ?? 0);
      const workerRss = Math.max(...workers.map((w) => rssMb(w.pid ?? 0)));
      const cpu = [web, ...workers].map((c, i) => cpuMs(c.pid ?? 0) - (cpu0[i] ?? 0));
      const callsDelta = (await Promise.all(nodes.map(async (n) => (await commandCalls(n)).all))).map(
        (c, i) => c - (calls0[i] ?? 0),
      );
      const keys = await Promise.all(nodes.map((r) => r.dbsize()));
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      rows.push({
        redis: mode,
        workers: n,
        digestsPerSecond: posted / seconds,
        perWorkerProcess: posted / seconds / n,
        commandsPerDelivery: sum(callsDelta) / DELIVERIES,
        keysShare: keys.map((k) => k / Math.max(1, sum(keys))),
        commandsShare: callsDelta.map((c) => c / Math.max(1, sum(callsDelta))),
        webCpuPerDelivery: (cpu[0] ?? 0) / DELIVERIES,
        workerCpuPerDelivery: sum(cpu.slice(1)) / DELIVERIES,
        webRss,
        workerRss,
      });
      log(`${mode}, ${n} worker(s): ${posted}/${DELIVERIES} digests in ${seconds.toFixed(1)} s`);
      await pool.close();
      for (const c of [web, ...workers]) await stopChild(c);
      await Promise.all(nodes.map((r) => r.flushall()));
      for (const r of nodes) r.disconnect();
      await emulator.close();
      await slack.close();
      rmSync(spool, { recursive: true, force: true });
    }
    await single?.close();
    await cluster?.close();
  }
  const pct = (xs: number[]) => xs.map((x) => `${Math.round(100 * x)}%`).join(" / ");
  console.log(
    `\nbench:scale — ${DELIVERIES} thread deliveries -> ${DELIVERIES} digests, 1 web process, throttle off, same machine (${process.env.BENCH_CORES ?? "2"} cores), same run\n`,
  );
  console.log(
    "| Redis | worker processes | digests/s | per worker process | Redis cmds/delivery | keys per master | commands per master | web CPU ms/delivery | worker CPU ms/delivery | web RSS MB | worker RSS MB |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    console.log(
      `| ${r.redis} | ${r.workers} | ${r.digestsPerSecond.toFixed(0)} | ${r.perWorkerProcess.toFixed(0)} | ${r.commandsPerDelivery.toFixed(1)} | ${pct(r.keysShare)} | ${pct(r.commandsShare)} | ${r.webCpuPerDelivery.toFixed(2)} | ${r.workerCpuPerDelivery.toFixed(2)} | ${r.webRss.toFixed(0)} | ${r.workerRss.toFixed(0)} |`,
    );
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
