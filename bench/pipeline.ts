// bench:pipeline — the all-in-one app (ROLE=all) under autocannon beside two ceilings that
// answer 200 and do nothing else (bare node:http, bare Express route), in the same run; then
// a burst of 2,000 enrichments of one group, to measure CPU per digest and the time until
// every card shows its sentiment.
//
//   npm run bench:pipeline [-- --seconds 5 --burst 2000 --warmup 1000 --app tsx|dist]
//
// Each burst runs in a fresh process after a warm-up burst of other threads (`--warmup`, not
// measured): CPU per digest is then a running service's, not its first seconds' (V8 compiling
// the app's code, on its helper threads too, adds about half as much again to the first ones).
//
// `--app dist` runs the app bundled as `npm run build` bundles it (appScript in processes.ts)
// instead of under the TypeScript loader.
// `--load-type message` loads with chatmessage-crud deliveries instead of chatthread-crud ones,
// both of a group nobody follows, so both end at the intake pump: a message delivery's own
// validation and record are what differ.
// `--floor` adds two rows to the burst: the same parts (node:http, BullMQ, undici) doing the
// least a digest needs (bench/targets/floor.ts), so the app's CPU per digest reads against
// what its stack costs on this machine.
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { Pool } from "undici";
import { startEmulator, SEED } from "../dev/emulator/index.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { dropPrefix, freePort, redisServerInstalled, startThrowawayRedis } from "../dev/local-redis.js";
import { PENDING_EMOJI } from "../src/domain/sentiment.js";
import { stateKeys } from "../src/store/keys.js";
import { SubscriptionStore } from "../src/store/subscriptions.js";
import {
  appScript,
  benchAppEnv,
  commandCalls,
  compiledTarget,
  cpuMs,
  cpuSplitMs,
  ioCalls,
  netInputBytes,
  rssMb,
  sendEnrichments,
  spawnReady,
  startedInMs,
  startFlags,
  stopChild,
} from "./processes.js";
import { loadAutocannon, type AutocannonRequest } from "./autocannon.js";
import { deliveriesLeft, drained } from "./queues.js";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    burst: { type: "string", default: "2000" },
    // Enrichments sent (and not measured) before each burst, in the same process: the burst then
    // measures a process that has run a while; 0 measures it straight after its start.
    warmup: { type: "string", default: "1000" },
    app: { type: "string", default: "tsx" },
    // How the `--before` app runs, when not as `--app`: `tsx` for a checkout whose `npm start`
    // ran the TypeScript loader, to measure it as it shipped.
    "before-app": { type: "string" },
    connections: { type: "string", default: "1,20,100" },
    before: { type: "string" },
    profile: { type: "string" },
    // Node flags for the app under test and for the `--before` app (e.g. "--max-semi-space-size=1").
    "node-options": { type: "string", default: "" },
    "before-node-options": { type: "string", default: "" },
    // Bursts per app; with --before the order alternates (after first, then before first, ...).
    "burst-rounds": { type: "string", default: "1" },
    "load-type": { type: "string", default: "thread" },
    // Rounds of each connection count under load, the target order alternating.
    "load-rounds": { type: "string", default: "1" },
    // The burst's floor rows: node:http + BullMQ + undici doing the least a digest needs.
    floor: { type: "boolean", default: false },
    // After the burst table, each target's Redis commands per digest by name (scripts' own
    // calls included: INFO commandstats counts them).
    commands: { type: "boolean", default: false },
  },
});
const SECONDS = Number(args.seconds);
const BURST = Number(args.burst);
const WARMUP = Number(args.warmup);
const APP = args.app === "dist" ? "dist" : "tsx";
const BEFORE_APP = args["before-app"] === undefined ? APP : args["before-app"] === "dist" ? "dist" : "tsx";
if (args["load-type"] !== "thread" && args["load-type"] !== "message") {
  throw new Error(`--load-type is thread or message, not ${args["load-type"]}`);
}
const CONNECTIONS = (args.connections ?? "1,20,100")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const SECRET = "bench-webhook-secret-0123456789";
const IDLE_SETTLE_MS = 43_000;
const CHANNEL = "C0BENCHPIPE";
const log = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let seq = 0;
/** A distinct valid delivery for a group nobody follows (`--load-type`: thread or message). */
function unrouted(): string {
  seq++;
  const common = {
    communityId: SEED.communities.primary,
    timestamp: new Date(Date.UTC(2026, 0, 1) + seq).toISOString(),
    threadId: `pipe-thread-${process.pid}-${seq}`,
    groupId: SEED.groups.rides,
    groupName: "Bench group",
  };
  if (args["load-type"] === "message") {
    return JSON.stringify({
      webhookType: "chatmessage-crud",
      actionType: "created",
      payload: {
        ...common,
        messageId: `pipe-message-${process.pid}-${seq}`,
        senderId: "bench-sender",
        senderName: "Bench sender",
        text: "Did anyone else see the upgrade roll back on its own last night?",
        messageTimestamp: common.timestamp,
      },
    });
  }
  return JSON.stringify({
    webhookType: "chatthread-crud",
    actionType: "created",
    payload: {
      ...common,
      title: `Bench thread ${seq}`,
      summary: "Members compare notes on an upgrade that went sideways and how they rolled back.",
      participantCount: 4,
      messageCount: 12,
    },
  });
}

/** `--profile DIR`: the apps (not the ceilings) write a CPU profile there when stopped with SIGINT. */
const profileFlags = (cmd: string[]): string[] =>
  args.profile && cmd[0] !== CEILING ? ["--cpu-prof", `--cpu-prof-dir=${args.profile}`] : [];
// The ceilings run as the app does: compiled with `--app dist`, under the loader otherwise.
const CEILING = APP === "dist" ? compiledTarget("bench/targets/ceiling.ts") : "bench/targets/ceiling.ts";
const start = (cmd: string[], env: NodeJS.ProcessEnv, tsx: boolean, cwd?: string, nodeFlags: string[] = []) =>
  spawnReady(cmd, {
    env,
    tsx,
    ...(cwd ? { cwd } : {}),
    nodeFlags: [...nodeFlags, ...profileFlags(cmd)],
    timeoutMs: 60_000,
  });
const stop = (child: ChildProcess) => stopChild(child, args.profile ? "SIGINT" : "SIGKILL");

/** Samples a process's RSS every 50 ms; `peak()` is the highest seen since the last reset. */
function rssSampler(pid: number) {
  let peak = 0;
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // the process is gone
    }
  }, 50);
  return {
    peak: () => peak,
    reset: () => (peak = 0),
    stop: () => clearInterval(timer),
  };
}

interface Row {
  target: string;
  conns: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  cpuPerDelivery?: number;
  redisPerDelivery?: number;
  scriptsPerDelivery?: number;
  /** Deliveries acknowledged and not yet processed when the row's load stopped. */
  leftAtEnd?: number;
  /** From then until the worker had processed every one, s. */
  drainSeconds?: number;
}

const fmt = (n: number | undefined, d = 1) => (n === undefined || Number.isNaN(n) ? "-" : n.toFixed(d));

async function main(): Promise<void> {
  const autocannon = await loadAutocannon();
  // A Redis of its own, so INFO commandstats counts only this app's commands.
  const own = redisServerInstalled() ? await startThrowawayRedis() : undefined;
  const REDIS_URL = own?.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (!own) log("redis-server not installed: using REDIS_URL; Redis commands per delivery include others'");
  const redis = new Redis(REDIS_URL);
  const emulator = await startEmulator();
  const slack = await startSlackStandIn();
  const spool = mkdtempSync(join(tmpdir(), "bench-spool-"));
  const prefix = `bench-pipeline-${process.pid}`;
  const appEnv = (port: number, tuning: object, appPrefix = prefix): NodeJS.ProcessEnv =>
    benchAppEnv({
      slackUrl: slack.url,
      insightUrl: emulator.baseUrl,
      insightKey: emulator.apiKey,
      webhookSecret: SECRET,
      redisUrl: REDIS_URL,
      prefix: appPrefix,
      port,
      spoolDir: spool,
      tuning,
    });
  // `cwd`: the same app from another checkout (`--before`), run the same way (built there for dist).
  const startApp = async (port: number, tuning: object, cwd?: string, appPrefix = prefix) => {
    const env = appEnv(port, tuning, appPrefix);
    const flags = (args[cwd ? "before-node-options" : "node-options"] ?? "").split(/\s+/).filter(Boolean);
    return (cwd ? BEFORE_APP : APP) === "dist"
      ? start([await appScript(cwd)], env, false, cwd, [...startFlags(cwd), ...flags])
      : start(["test/helpers/app-process.ts"], env, true, cwd, flags);
  };

  // The floor (bench/targets/floor.ts): the same parts doing the least a digest needs, run
  // compiled like the app (no loader in its CPU or RSS).
  const floorJs = args.floor ? compiledTarget("bench/targets/floor.ts") : undefined;
  const floorName = (jobs: string) =>
    jobs === "0"
      ? "floor: node:http + Redis (no job) + undici"
      : `floor: node:http + BullMQ (${jobs === "2" ? "2 jobs, as the app" : "1 job"}) + undici`;
  const startFloor = (port: number, jobs: string, floorPrefix: string) =>
    start(
      [floorJs ?? "", String(port), REDIS_URL, slack.url, floorPrefix, jobs, CHANNEL],
      process.env,
      false,
    );

  const rows: Row[] = [];
  const memory = new Map<string, { started: number; idle: number; peak: number; startMs: number }>();
  type Kind = "ceiling" | "floor" | "app";
  const targets: { name: string; kind: Kind; start: (p: number, pre: string) => Promise<ChildProcess> }[] = [
    {
      name: "node:http (ceiling)",
      kind: "ceiling",
      start: (p: number) => start([CEILING, "node-http", String(p)], process.env, APP === "tsx"),
    },
    {
      name: "express (ceiling)",
      kind: "ceiling",
      start: (p: number) => start([CEILING, "express", String(p)], process.env, APP === "tsx"),
    },
    // The production per-channel throttle; no channel follows the group of these deliveries.
    {
      name: `insight-relay all (${APP})`,
      kind: "app",
      start: (p: number, pre: string) => startApp(p, {}, undefined, pre),
    },
  ];
  // `--before DIR`: the same app from another checkout (e.g. main), for a same-run before/after.
  if (args.before) {
    const dir = args.before;
    targets.push({
      name: "insight-relay all (before)",
      kind: "app",
      start: (p, pre) => startApp(p, {}, dir, pre),
    });
  }
  // Under load the floor acknowledges with one BullMQ add and posts every delivery (the app
  // posts none of these: no channel follows their group).
  if (floorJs)
    targets.push({ name: floorName("2"), kind: "floor", start: (p, pre) => startFloor(p, "2", pre) });

  // Every target runs at once (idle while another is measured), and each connection count is
  // measured on each target in turn, so a machine whose load drifts treats them alike.
  const running: {
    t: (typeof targets)[number];
    child: ChildProcess;
    pid: number;
    url: string;
    requests: { setupRequest: (r: AutocannonRequest) => AutocannonRequest }[];
    prefix: string;
    sampler: ReturnType<typeof rssSampler>;
  }[] = [];
  // `--connections ""`: the burst alone.
  for (const [i, t] of CONNECTIONS.length > 0 ? targets.entries() : []) {
    const port = await freePort();
    const tPrefix = `${prefix}-${i}`;
    const child = await t.start(port, tPrefix);
    const pid = child.pid ?? 0;
    const url = `http://127.0.0.1:${port}/webhooks/insight/${SECRET}`;
    const requests = [
      {
        setupRequest: (r: AutocannonRequest): AutocannonRequest => ({
          ...r,
          method: "POST",
          path: new URL(url).pathname,
          headers: { "content-type": "application/json" },
          body: unrouted(),
        }),
      },
    ];
    running.push({ t, child, pid, url, requests, prefix: tPrefix, sampler: rssSampler(pid) });
  }
  // RSS just after start-up (V8's young generation still at the size start-up grew it to), then
  // idle: the lowest RSS while left alone, once V8's memory reducer has shrunk the heap (it
  // looks after ~8 s of idleness, and may take a few rounds: in runs of 2026-11-24 it had not
  // yet by 20 s in about half the runs, of either build, and always had by 45 s).
  await sleep(2_000);
  const measured = (t: { kind: Kind }) => t.kind !== "ceiling";
  const started = running.map((r) => (measured(r.t) ? rssMb(r.pid) : NaN));
  const lowest = [...started];
  for (const end = Date.now() + IDLE_SETTLE_MS; Date.now() < end;) {
    await sleep(250);
    for (const [i, r] of running.entries())
      if (measured(r.t)) lowest[i] = Math.min(lowest[i] ?? NaN, rssMb(r.pid));
  }
  for (const [i, r] of running.entries()) {
    memory.set(r.t.name, {
      started: started[i] ?? NaN,
      idle: lowest[i] ?? NaN,
      peak: NaN,
      startMs: startedInMs(r.child) ?? NaN,
    });
  }
  for (const r of running) {
    await autocannon({ url: r.url, connections: 10, duration: 1, requests: r.requests }); // warm-up
  }
  // Each connection count `--load-rounds` times, the order reversed every other round: one
  // build under two names measured 3,522-7,519 deliveries/s at 100 connections in one run of
  // this 2-core machine, so one row per target says little; the ratios use the mean.
  const loadRounds = Math.max(1, Number(args["load-rounds"]));
  const measuredRuns = (conns: number) =>
    Array.from({ length: loadRounds }, (_, round) =>
      (round % 2 ? [...running].reverse() : running).map((r) => ({ ...r, conns, round })),
    ).flat();
  for (const { t, pid, url, requests, prefix: tPrefix, conns, round } of CONNECTIONS.flatMap(measuredRuns)) {
    log(`${t.name}: ${conns} connection(s) for ${SECONDS} s`);
    const cpu0 = cpuMs(pid);
    const calls0 = await commandCalls(redis);
    const r = await autocannon({ url, connections: conns, duration: SECONDS, requests });
    const row: Row = {
      target: loadRounds > 1 ? `${t.name}, round ${round + 1}` : t.name,
      conns,
      perSecond: r["2xx"] / SECONDS,
      p50: r.latency.p50,
      p99: r.latency.p99,
      max: r.latency.max,
      non2xx: r.non2xx + r.errors,
    };
    // The floor posts every one of these deliveries: let it finish before the next row.
    if (t.kind === "floor") await drained(redis, tPrefix, "floor-*");
    if (t.kind === "app") {
      // Until the worker has processed every delivery: the app's whole cost of each. The
      // bench's own commands (these polls, INFO) are not counted.
      const end = await deliveriesLeft(redis, tPrefix);
      const stopped = performance.now();
      const ours = 1 + end.commands + (await drained(redis, tPrefix));
      row.leftAtEnd = end.left;
      row.drainSeconds = (performance.now() - stopped) / 1000;
      row.cpuPerDelivery = (cpuMs(pid) - cpu0) / r["2xx"];
      const calls = await commandCalls(redis);
      row.redisPerDelivery = (calls.all - calls0.all - ours) / r["2xx"];
      row.scriptsPerDelivery = (calls.scripts - calls0.scripts) / r["2xx"];
    }
    rows.push(row);
  }
  for (const r of running) {
    const m = memory.get(r.t.name);
    if (m) m.peak = r.sampler.peak();
    r.sampler.stop();
    await stop(r.child);
    await dropPrefix(REDIS_URL, r.prefix);
  }

  // The burst: BURST threads of one group enriched at once, one channel following it, no
  // per-channel throttle (so the time measured is the pipeline's, not Slack's pace).
  const bursts: {
    target: string;
    digests: number;
    posts: number;
    updates: number;
    cpuPerDigest: number;
    cpuPerCard: number;
    /** The share of the burst's CPU spent in the kernel (system calls), in %. */
    kernelShare: number;
    /** Which round of bursts (from 1), to pair each app with the floor of the same round. */
    round: number;
    redisPerDigest: number;
    scriptsPerDigest: number;
    redisKbPerDigest: number;
    writesPerDigest: number;
    readsPerDigest: number;
    peak: number;
    sentSeconds: number;
    allSeconds?: number;
    enrichedAtEnd?: number;
    byName: [string, number][];
  }[] = [];
  const apps: { name: string; start: (port: number, tuning: object) => Promise<ChildProcess> }[] = [
    { name: `insight-relay all (${APP})`, start: (p, tuning) => startApp(p, tuning) },
  ];
  if (args.before) {
    const dir = args.before;
    apps.push({ name: "insight-relay all (before)", start: (p, tuning) => startApp(p, tuning, dir) });
  }
  for (const jobs of floorJs ? ["2", "1", "0"] : []) {
    apps.push({ name: floorName(jobs), start: (p) => startFloor(p, jobs, prefix) });
  }
  const rounds = Math.max(1, Number(args["burst-rounds"]));
  const turns = Array.from({ length: rounds }, (_, r) => (r % 2 ? [...apps].reverse() : apps)).flat();
  for (const [turn, t] of turns.entries()) {
    await dropPrefix(REDIS_URL, prefix);
    const subs = new SubscriptionStore(redis, stateKeys(prefix));
    const groupId = SEED.groups.support;
    await subs.put({
      channelId: CHANNEL,
      groupId,
      groupName: "Lumen DB Support",
      communityId: SEED.communities.primary,
      filters: {},
      createdBy: "U0BENCH",
      createdAt: new Date().toISOString(),
    });
    const group = emulator.store.group(groupId);
    if (!group) throw new Error("the emulator has no support group");
    slack.reset();
    const port = await freePort();
    const child = await t.start(port, { channelGapMs: 0 });
    const pid = child.pid ?? 0;
    await sleep(1_000);
    const sampler = rssSampler(pid);
    const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 20 });
    const sendBurst = (n: number) =>
      sendEnrichments({ pool, path: `/webhooks/insight/${SECRET}`, store: emulator.store, group, n });
    const pending = `${PENDING_EMOJI} pending`;
    const enriched = () =>
      slack.messages(CHANNEL).filter((m) => !JSON.stringify(m.blocks ?? []).includes(pending)).length;
    /** Until `n` cards show their sentiment (or a minute has passed): when, or undefined. */
    const untilEnriched = async (n: number, from: number): Promise<number | undefined> => {
      while (performance.now() < from + 60_000) {
        if (enriched() >= n) return performance.now();
        await sleep(200);
      }
      return undefined;
    };
    if (WARMUP > 0) {
      // A burst of other threads first, in the same process, not measured: what follows is
      // the steady state of a process that has run a while (its code compiled), not its start.
      log(`${t.name}: warm-up burst of ${WARMUP}`);
      await sendBurst(WARMUP);
      await untilEnriched(WARMUP, performance.now());
      await sleep(500);
      slack.reset();
    }
    log(`${t.name}: burst of ${BURST} enrichments of one group, one channel following it`);
    const cpu0 = cpuSplitMs(pid);
    const io0 = ioCalls(pid);
    const calls0 = await commandCalls(redis);
    const bytes0 = await netInputBytes(redis);
    const started = performance.now();
    await sendBurst(BURST);
    const lastAck = performance.now();
    const allAt = await untilEnriched(BURST, lastAck);
    const enrichedAtEnd = enriched();
    await sleep(500); // let the last edits settle before reading the CPU
    const cpu1 = cpuSplitMs(pid);
    const burstKernel = cpu1.kernel - cpu0.kernel;
    const burstCpu = cpu1.user - cpu0.user + burstKernel;
    const io = ioCalls(pid);
    // The workers' idle polling is included: a little over what the digests alone cost.
    const calls = await commandCalls(redis);
    const bytes = await netInputBytes(redis);
    const posts = slack.posts().length;
    const updates = slack.posts("chat.update").length;
    const burstPeak = sampler.peak();
    sampler.stop();
    await pool.close();
    await stop(child);
    const round = Math.floor(turn / apps.length) + 1;
    bursts.push({
      target: rounds > 1 ? `${t.name}, burst ${round}` : t.name,
      round,
      kernelShare: (100 * burstKernel) / Math.max(1, burstCpu),
      digests: posts + updates,
      posts,
      updates,
      cpuPerDigest: burstCpu / (posts + updates),
      cpuPerCard: burstCpu / BURST,
      redisPerDigest: (calls.all - calls0.all) / (posts + updates),
      scriptsPerDigest: (calls.scripts - calls0.scripts) / (posts + updates),
      redisKbPerDigest: (bytes - bytes0) / 1024 / (posts + updates),
      writesPerDigest: (io.writes - io0.writes) / (posts + updates),
      readsPerDigest: (io.reads - io0.reads) / (posts + updates),
      byName: [...calls.byName]
        .map(([name, n]): [string, number] => [
          name,
          (n - (calls0.byName.get(name) ?? 0)) / (posts + updates),
        ])
        .filter(([, n]) => n >= 0.05)
        .sort((a, b) => b[1] - a[1]),
      peak: burstPeak,
      sentSeconds: (lastAck - started) / 1000,
      ...(allAt === undefined ? { enrichedAtEnd } : { allSeconds: (allAt - lastAck) / 1000 }),
    });
  }

  await dropPrefix(REDIS_URL, prefix);
  redis.disconnect();
  await own?.close();
  await emulator.close();
  await slack.close();
  rmSync(spool, { recursive: true, force: true });

  console.log(
    `\nbench:pipeline — autocannon ${SECONDS} s per row, unique ${args["load-type"]} deliveries of a group nobody follows, same machine, same run\n`,
  );
  console.log(
    "| target | connections | deliveries/s | ack p50 ms | ack p99 ms | ack max ms | non-2xx | app CPU ms/delivery | Redis cmds/delivery | scripts/delivery | left at the end | then done in s |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    console.log(
      `| ${r.target} | ${r.conns} | ${fmt(r.perSecond, 0)} | ${fmt(r.p50, 0)} | ${fmt(r.p99, 0)} | ${fmt(r.max, 0)} | ${r.non2xx} | ${fmt(r.cpuPerDelivery, 2)} | ${fmt(r.redisPerDelivery, 1)} | ${fmt(r.scriptsPerDelivery, 1)} | ${fmt(r.leftAtEnd, 0)} | ${fmt(r.drainSeconds, 1)} |`,
    );
  }
  console.log("\nratio all-in-one / ceiling (deliveries/s)");
  for (const c of CONNECTIONS) {
    // The mean over the rounds.
    const get = (name: string) => {
      const of = rows.filter((r) => r.target.startsWith(name) && r.conns === c);
      return of.reduce((sum, r) => sum + r.perSecond, 0) / of.length;
    };
    for (const t of targets.filter((x) => x.kind === "app")) {
      const app = get(t.name);
      const ofFloor = floorJs ? `, ${fmt((100 * app) / get("floor"), 0)}% of the floor` : "";
      console.log(
        `  ${t.name}, ${String(c).padStart(3)} connection(s): ${fmt((100 * app) / get("express"), 0)}% of express, ${fmt((100 * app) / get("node:http"), 0)}% of node:http${ofFloor}`,
      );
    }
  }
  console.log(
    `\n| target | start to listening ms | RSS 2 s after start MB | RSS idle (lowest, 2-${IDLE_SETTLE_MS / 1000 + 2} s) MB | RSS peak under load MB |`,
  );
  console.log("| --- | --- | --- | --- | --- |");
  for (const [name, m] of memory) {
    console.log(
      `| ${name} | ${fmt(m.startMs, 0)} | ${fmt(m.started, 0)} | ${fmt(m.idle, 0)} | ${fmt(m.peak, 0)} |`,
    );
  }
  console.log(
    `\nburst of ${BURST} enrichments of one group, one channel following it, no per-channel throttle, ${
      WARMUP > 0
        ? `after a warm-up burst of ${WARMUP} in the same process (--warmup 0: straight after its start)`
        : "straight after the process started (its code not yet compiled)"
    }`,
  );
  console.log(
    "| target | sent in s | every card with sentiment, s after the last delivery | posts | edits | app CPU ms/digest | of which kernel % | app CPU ms/card | Redis cmds/digest | scripts/digest | KB to Redis/digest | writes/digest | reads/digest | peak RSS MB |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const b of bursts) {
    const all =
      b.allSeconds === undefined ? `not within 60 s (${b.enrichedAtEnd} of ${BURST})` : fmt(b.allSeconds, 1);
    console.log(
      `| ${b.target} | ${fmt(b.sentSeconds, 1)} | ${all} | ${b.posts} | ${b.updates} | ${fmt(b.cpuPerDigest, 2)} | ${fmt(b.kernelShare, 0)} | ${fmt(b.cpuPerCard, 2)} | ${fmt(b.redisPerDigest, 1)} | ${fmt(b.scriptsPerDigest, 1)} | ${fmt(b.redisKbPerDigest, 1)} | ${fmt(b.writesPerDigest, 2)} | ${fmt(b.readsPerDigest, 2)} | ${fmt(b.peak, 0)} |`,
    );
  }
  if (floorJs) {
    // Both ran on this machine in the same round: the ratio depends on the machine less than ms do.
    console.log("\nCPU per digest against the one-job floor of the same round of bursts");
    const oneJob = floorName("1");
    for (const a of apps.filter((x) => !x.name.startsWith("floor"))) {
      const ratios = bursts
        .filter((b) => b.target.startsWith(a.name))
        .map((b) => {
          const floor = bursts.find((f) => f.round === b.round && f.target.startsWith(oneJob));
          return floor ? b.cpuPerDigest / floor.cpuPerDigest : Number.NaN;
        });
      console.log(`  ${a.name}: ${ratios.map((r) => `${fmt(r, 2)}x`).join(", ")}`);
    }
  }
  if (args.commands) {
    console.log("\nRedis commands per digest in the burst, by name (0.05 or more)");
    for (const b of bursts) {
      console.log(`  ${b.target}: ${b.byName.map(([name, n]) => `${name} ${fmt(n, 2)}`).join(", ")}`);
    }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
