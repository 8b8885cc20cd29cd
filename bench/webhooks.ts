// bench:webhooks — the receiver's throughput and ack latency against two ceilings that answer
// 200 and do nothing else (bare node:http, bare Express route), the Express and node:http routes
// that make one Redis write first (the least any ack durable in Redis costs) and the one that adds each
// delivery to a BullMQ queue first (the least a durable ack costs with the app's parts), in the
// same run, plus end-to-end digests per second from webhook to the stand-in Slack.
//
//   npm run bench:webhooks [-- --count 10000 --rate 500 --seconds 10]
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { Pool } from "undici";
import { startEmulator, SEED } from "../dev/emulator/index.js";
import { createLogger } from "../src/log.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { stateKeys } from "../src/store/keys.js";
import { SubscriptionStore } from "../src/store/subscriptions.js";
import { dropPrefix, freePort } from "../dev/local-redis.js";
import {
  appScript,
  compiledTarget,
  cpuMs,
  spawnReady as spawnWith,
  startFlags,
  stopChild as stop,
} from "./processes.js";

const spawnReady = (cmd: string[], env: NodeJS.ProcessEnv) => spawnWith(cmd, { env, tsx: true });

const { values: args } = parseArgs({
  options: {
    count: { type: "string", default: "10000" },
    // The web role under the TypeScript loader (as earlier runs), or compiled as \`npm start\` runs it.
    app: { type: "string", default: "tsx" },
    rate: { type: "string", default: "500" },
    seconds: { type: "string", default: "10" },
    "e2e-threads": { type: "string", default: "200" },
    channels: { type: "string", default: "50" },
  },
});
const COUNT = Number(args.count);
const DIST = args.app === "dist";
// The ceilings run as the web role does: compiled with `--app dist`, under the loader otherwise.
const CEILING = DIST ? compiledTarget("bench/targets/ceiling.ts") : "bench/targets/ceiling.ts";
const ceiling = (kind: string, port: number, env: NodeJS.ProcessEnv = process.env, ...rest: string[]) =>
  spawnWith([CEILING, kind, String(port), ...rest], { env, tsx: !DIST });
const RATE = Number(args.rate);
const SECONDS = Number(args.seconds);
const CONCURRENCY = [1, 20, 100];
const SECRET = "bench-webhook-secret-0123456789";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Stats {
  n: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

function stats(lat: number[], seconds: number, non2xx: number): Stats {
  const s = [...lat].sort((a, b) => a - b);
  return {
    n: lat.length,
    seconds,
    perSecond: lat.length / seconds,
    p50: pct(s, 50),
    p99: pct(s, 99),
    max: s.at(-1) ?? 0,
    non2xx,
  };
}

let seq = 0;
/** A distinct valid chatthread-crud delivery (distinct, so none is a duplicate). */
function delivery(groupId: string, threadId?: string): string {
  seq++;
  return JSON.stringify({
    webhookType: "chatthread-crud",
    actionType: "created",
    payload: {
      communityId: SEED.communities.primary,
      timestamp: new Date(Date.UTC(2026, 0, 1) + seq).toISOString(),
      threadId: threadId ?? `bench-thread-${seq}`,
      groupId,
      groupName: "Bench group",
      title: `Bench thread ${seq}`,
      summary: "Members compare notes on an upgrade that went sideways and how they rolled back.",
      participantCount: 4,
      messageCount: 12,
    },
  });
}

async function closedLoop(url: string, concurrency: number, count: number, group: string): Promise<Stats> {
  const pool = new Pool(new URL(url).origin, { connections: concurrency, pipelining: 1 });
  const path = new URL(url).pathname;
  const lat: number[] = [];
  let sent = 0;
  let non2xx = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (sent < count) {
        sent++;
        const body = delivery(group);
        const t0 = performance.now();
        const res = await pool.request({
          method: "POST",
          path,
          headers: { "content-type": "application/json" },
          body,
        });
        await res.body.dump();
        lat.push(performance.now() - t0);
        if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return stats(lat, seconds, non2xx);
}

/** Open loop: sends at a fixed rate regardless of answers, so slow answers show as latency. */
async function fixedRate(url: string, rate: number, seconds: number, group: string): Promise<Stats> {
  const pool = new Pool(new URL(url).origin, { connections: 64, pipelining: 1 });
  const path = new URL(url).pathname;
  const lat: number[] = [];
  let non2xx = 0;
  const total = rate * seconds;
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const body = delivery(group);
    const t0 = performance.now();
    inflight.push(
      pool
        .request({ method: "POST", path, headers: { "content-type": "application/json" }, body })
        .then(async (res) => {
          await res.body.dump();
          lat.push(performance.now() - t0);
          if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
        }),
    );
  }
  await Promise.all(inflight);
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return stats(lat, elapsed, non2xx);
}

const fmt = (n: number, d = 1) => n.toFixed(d).padStart(9);

async function main(): Promise<void> {
  const emulator = await startEmulator();
  const slack = await startSlackStandIn();
  const spool = mkdtempSync(join(tmpdir(), "bench-spool-"));
  const prefix = `bench-webhooks-${process.pid}`;
  const appEnv = (role: string, port: number, tuning: object): NodeJS.ProcessEnv => ({
    ...process.env,
    SLACK_BOT_TOKEN: "xoxb-bench-token",
    SLACK_SIGNING_SECRET: "bench-signing-secret",
    SLACK_API_URL: slack.url,
    INSIGHT_BASE_URL: emulator.baseUrl,
    INSIGHT_API_KEY: emulator.apiKey,
    WEBHOOK_SECRET: SECRET,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    ROLE: role,
    SPOOL_DIR: spool,
    LOG_LEVEL: process.env.BENCH_DEBUG ? "info" : "warn",
    TEST_TUNING: JSON.stringify(tuning),
  });

  // `cpu`: the target process's own CPU (user + system) per delivery in the row, in ms.
  const rows: { target: string; conc: number; s: Stats; cpu: number }[] = [];
  const fixed: { target: string; s: Stats }[] = [];
  const targets: { name: string; start: (port: number) => Promise<ChildProcess> }[] = [
    {
      name: "node:http (ceiling)",
      start: (p) => ceiling("node-http", p),
    },
    {
      name: "express (ceiling)",
      start: (p) => ceiling("express", p),
    },
    {
      name: "express + Redis SET",
      start: (p) => ceiling("express-redis", p, { ...process.env, REDIS_URL }, prefix),
    },
    {
      name: "node:http + Redis SET",
      start: (p) => ceiling("node-http-redis", p, { ...process.env, REDIS_URL }, prefix),
    },
    {
      name: "express + BullMQ add",
      start: (p) => ceiling("express-bullmq", p, { ...process.env, REDIS_URL }, prefix),
    },
    {
      name: `insight-relay web${DIST ? " (dist)" : ""}`,
      start: async (p) =>
        DIST
          ? spawnWith([await appScript()], {
              env: appEnv("web", p, {}),
              tsx: false,
              nodeFlags: startFlags(),
            })
          : spawnReady(["test/helpers/app-process.ts"], appEnv("web", p, {})),
    },
  ];
  // An unsubscribed group: the receiver does its full work (validate, dedupe, enqueue).
  const group = SEED.groups.rides;
  for (const t of targets) {
    const port = await freePort();
    const child = await t.start(port);
    const url = `http://127.0.0.1:${port}/webhooks/insight/${SECRET}`;
    await closedLoop(url, 20, 1000, group); // warm-up
    for (const c of CONCURRENCY) {
      log(`${t.name}: ${COUNT} deliveries at concurrency ${c}`);
      const cpuBefore = cpuMs(child.pid ?? 0);
      const s = await closedLoop(url, c, COUNT, group);
      rows.push({ target: t.name, conc: c, s, cpu: (cpuMs(child.pid ?? 0) - cpuBefore) / COUNT });
    }
    log(`${t.name}: ${RATE}/s for ${SECONDS} s`);
    fixed.push({ target: t.name, s: await fixedRate(url, RATE, SECONDS, group) });
    await stop(child);
  }
  await dropPrefix(REDIS_URL, prefix);

  // End to end: webhook -> queue -> listing lookup -> render -> stand-in Slack.
  const e2eThreads = Number(args["e2e-threads"]);
  const channels = Array.from(
    { length: Number(args.channels) },
    (_, i) => `C0BENCH${String(i).padStart(4, "0")}`,
  );
  const e2e: { label: string; digests: number; seconds: number }[] = [];
  for (const [label, gap, threads] of [
    ["pipeline capacity (no per-channel throttle)", 0, e2eThreads],
    ["production throttle (1.1 s per channel)", 1_100, 10],
  ] as const) {
    const redis = new Redis(REDIS_URL);
    const subs = new SubscriptionStore(redis, stateKeys(prefix));
    for (const ch of channels) {
      await subs.put({
        channelId: ch,
        groupId: SEED.groups.support,
        groupName: "Lumen DB Support",
        communityId: SEED.communities.primary,
        filters: {},
        createdBy: "U0BENCH",
        createdAt: new Date().toISOString(),
      });
    }
    const ids = Array.from({ length: threads }, () => emulator.store.addThread(SEED.groups.support).id);
    slack.reset();
    const port = await freePort();
    const child = await spawnReady(
      ["test/helpers/app-process.ts"],
      appEnv("all", port, { channelGapMs: gap, workerConcurrency: { deliveries: 20, slack: 32 } }),
    );
    const url = `http://127.0.0.1:${port}/webhooks/insight/${SECRET}`;
    const want = threads * channels.length;
    log(`e2e ${label}: ${threads} threads x ${channels.length} channels = ${want} digests`);
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 20 });
    const started = performance.now();
    await Promise.all(
      ids.map(async (id) => {
        const res = await pool.request({
          method: "POST",
          path: new URL(url).pathname,
          headers: { "content-type": "application/json" },
          body: delivery(SEED.groups.support, id),
        });
        await res.body.dump();
      }),
    );
    await slack
      .waitFor(() => slack.posts().length >= want, { timeoutMs: 300_000, intervalMs: 50 })
      .catch(() => {
        const got = new Set(slack.messages().map((m) => `${m.channel}`));
        throw new Error(
          `only ${slack.posts().length} of ${want} digests arrived (channels: ${[...got].length})`,
        );
      });
    const seconds = (performance.now() - started) / 1000;
    e2e.push({ label, digests: slack.posts().length, seconds });
    await pool.close();
    await stop(child);
    redis.disconnect();
    await dropPrefix(REDIS_URL, prefix);
  }
  await emulator.close();
  await slack.close();
  rmSync(spool, { recursive: true, force: true });

  console.log(`\nbench:webhooks — ${COUNT} deliveries per row, same machine, same run\n`);
  console.log(
    "target                 conc  deliveries/s    p50 ms    p99 ms    max ms  non-2xx  CPU ms/delivery",
  );
  for (const r of rows) {
    console.log(
      `${r.target.padEnd(22)} ${String(r.conc).padStart(4)} ${fmt(r.s.perSecond, 0).padStart(13)} ${fmt(r.s.p50, 2)} ${fmt(r.s.p99, 2)} ${fmt(r.s.max, 2)} ${String(r.s.non2xx).padStart(8)} ${fmt(r.cpu, 3).padStart(16)}`,
    );
  }
  console.log("\nratio insight-relay / ceiling (throughput)");
  for (const c of CONCURRENCY) {
    const get = (name: string) =>
      rows.find((r) => r.target.startsWith(name) && r.conc === c)?.s.perSecond ?? NaN;
    const relay = get("insight-relay");
    console.log(
      `  concurrency ${String(c).padStart(3)}: ${(100 * (relay / get("express ("))).toFixed(0)}% of express, ${(100 * (relay / get("node:http ("))).toFixed(0)}% of node:http, ${(100 * (relay / get("express + Redis"))).toFixed(0)}% of express + Redis SET, ${(100 * (relay / get("node:http + Redis"))).toFixed(0)}% of node:http + Redis SET, ${(100 * (relay / get("express + BullMQ"))).toFixed(0)}% of express + BullMQ add`,
    );
  }
  console.log(`\nfixed rate ${RATE}/s for ${SECONDS} s (open loop)`);
  console.log("target                 achieved/s    p50 ms    p99 ms    max ms  non-2xx");
  for (const f of fixed) {
    console.log(
      `${f.target.padEnd(22)} ${fmt(f.s.perSecond, 0).padStart(11)} ${fmt(f.s.p50, 2)} ${fmt(f.s.p99, 2)} ${fmt(f.s.max, 2)} ${String(f.s.non2xx).padStart(8)}`,
    );
  }
  console.log("\nend to end (webhook -> BullMQ -> listing lookup -> render -> stand-in Slack)");
  for (const e of e2e) {
    console.log(
      `  ${e.label}: ${e.digests} digests in ${e.seconds.toFixed(1)} s = ${(e.digests / e.seconds).toFixed(0)} digests/s`,
    );
  }
  void createLogger;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
