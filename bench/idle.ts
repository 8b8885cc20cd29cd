// bench:idle — the all-in-one app's idle RSS over several processes, beside a baseline measured
// in the same run: the floor (node:http + BullMQ + undici, bench/targets/floor.ts) and, with
// `--before DIR`, the app of another checkout. One process's idle RSS moves by 3-5 MB from start
// to start (V8's memory reducer, thread arenas), so a target like "at most 80 MB" is read off the
// median and the highest of several.
//
//   npm run bench:idle [-- --processes 4 --seconds 45 --before DIR --node-options=FLAGS
//                          --before-node-options=FLAGS --no-floor]
//
// Each app runs bundled as `npm run build` bundles it (appScript in processes.ts; a `--before`
// checkout from before the bundle: its dist/, built there) with the Node flags of `npm start` in
// its checkout, then `--node-options` (`--before-node-options`); the floor gets
// this checkout's `npm start` flags. Processes start one after another, the target order
// reversed every other round, and are then left alone together: each one's RSS 2 s after it was
// ready, its lowest RSS until `--seconds` after the last start, and at the end how much of it is
// file pages (Node's binary, shared libraries) and how much anonymous memory (heap, malloc,
// stacks).
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startEmulator } from "../dev/emulator/index.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { dropPrefix, freePort, redisServerInstalled, startThrowawayRedis } from "../dev/local-redis.js";
import {
  appScript,
  benchAppEnv,
  compiledTarget,
  residentMb,
  spawnReady,
  startFlags,
  stopChild,
} from "./processes.js";

const { values: args } = parseArgs({
  options: {
    processes: { type: "string", default: "4" },
    seconds: { type: "string", default: "45" },
    before: { type: "string" },
    // Node flags for the app under test and for the `--before` app, after `npm start`'s own.
    "node-options": { type: "string", default: "" },
    "before-node-options": { type: "string", default: "" },
    // The floor processes (the baseline); `--no-floor` leaves them out.
    floor: { type: "boolean", default: true },
  },
  allowNegative: true,
});
const PROCESSES = Number(args.processes);
const WINDOW_MS = Number(args.seconds) * 1000;
if (!Number.isInteger(PROCESSES) || PROCESSES < 1 || !Number.isFinite(WINDOW_MS) || WINDOW_MS < 5_000) {
  console.error("--processes takes a whole number of at least 1, --seconds a number of at least 5");
  process.exit(2);
}
const log = (s: string) => process.stderr.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const flagsOf = (s: string | undefined) => (s ?? "").split(/\s+/).filter(Boolean);

interface Target {
  name: string;
  start: (port: number, prefix: string) => Promise<ChildProcess>;
}
interface Sample {
  target: string;
  child: ChildProcess;
  pid: number;
  /** When it said it was ready (ms since the epoch). */
  readyAt: number;
  started: number;
  lowest: number;
  fileMb: number;
  anonMb: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "-");

async function main(): Promise<void> {
  const own = redisServerInstalled() ? await startThrowawayRedis() : undefined;
  const redisUrl = own?.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const emulator = await startEmulator();
  const slack = await startSlackStandIn();
  const spool = mkdtempSync(join(tmpdir(), "bench-idle-spool-"));
  const prefixes: string[] = [];
  const samples: Sample[] = [];
  try {
    const targets = benchTargets({ redisUrl, slackUrl: slack.url, emulator, spool });
    await startAll(targets, samples, prefixes);
    await leaveAlone(samples);
    report(targets, samples);
  } finally {
    // Also after a failure: nothing started here outlives the bench.
    await Promise.all(samples.map((x) => stopChild(x.child)));
    await Promise.all(prefixes.map((pre) => dropPrefix(redisUrl, pre).catch(() => undefined)));
    await slack.close();
    await emulator.close();
    await own?.close();
    rmSync(spool, { recursive: true, force: true });
  }
}

/** The app, the `--before` app and the floor, each as a way to start one process of it. */
function benchTargets(o: {
  redisUrl: string;
  slackUrl: string;
  emulator: { baseUrl: string; apiKey: string };
  spool: string;
}): Target[] {
  const appTarget = (name: string, cwd: string | undefined, extra: string[]): Target => ({
    name,
    start: async (port, prefix) =>
      spawnReady([await appScript(cwd)], {
        env: benchAppEnv({
          slackUrl: o.slackUrl,
          insightUrl: o.emulator.baseUrl,
          insightKey: o.emulator.apiKey,
          webhookSecret: "bench-webhook-secret-0123456789",
          redisUrl: o.redisUrl,
          prefix,
          port,
          spoolDir: o.spool,
          tuning: {},
        }),
        tsx: false,
        ...(cwd ? { cwd } : {}),
        nodeFlags: [...startFlags(cwd), ...extra],
        timeoutMs: 120_000,
      }),
  });
  const targets = [appTarget("insight-relay all (dist)", undefined, flagsOf(args["node-options"]))];
  if (args.before)
    targets.push(appTarget("insight-relay all (before)", args.before, flagsOf(args["before-node-options"])));
  if (args.floor) {
    // Run as the app runs: compiled, with `npm start`'s flags, so the difference is the app's code.
    const floorJs = compiledTarget("bench/targets/floor.ts");
    targets.push({
      name: "floor: node:http + BullMQ (2 jobs) + undici",
      start: (port, prefix) =>
        spawnReady([floorJs, String(port), o.redisUrl, o.slackUrl, prefix, "2", "C0BENCHIDLE"], {
          env: process.env,
          tsx: false,
          nodeFlags: startFlags(),
          timeoutMs: 120_000,
        }),
    });
  }
  return targets;
}

/** `--processes` rounds, one process of each target a round, the order reversed every other round. */
async function startAll(targets: Target[], samples: Sample[], prefixes: string[]): Promise<void> {
  const base = `bench-idle-${process.pid}`;
  for (let round = 0; round < PROCESSES; round++) {
    for (const t of round % 2 === 0 ? targets : [...targets].reverse()) {
      const prefix = `${base}-${prefixes.length}`;
      prefixes.push(prefix);
      log(`starting ${t.name} #${round + 1}`);
      const child = await t.start(await freePort(), prefix);
      samples.push({
        target: t.name,
        child,
        pid: child.pid ?? 0,
        readyAt: Date.now(),
        started: NaN,
        lowest: NaN,
        fileMb: NaN,
        anonMb: NaN,
      });
    }
  }
}

/**
 * Samples every process every 250 ms until `--seconds` after the last start: its RSS 2 s after
 * it was ready, then its lowest; at the end, its file pages and anonymous memory.
 */
async function leaveAlone(samples: Sample[]): Promise<void> {
  log(`all ${samples.length} processes started; left alone for ${WINDOW_MS / 1000} s`);
  const end = Date.now() + WINDOW_MS;
  while (Date.now() < end) {
    await sleep(250);
    for (const x of samples) {
      if (Date.now() < x.readyAt + 2_000) continue;
      const { rssMb } = residentMb(x.pid);
      if (Number.isNaN(rssMb)) continue; // exited: reported below
      if (Number.isNaN(x.started)) x.started = rssMb;
      x.lowest = Number.isNaN(x.lowest) ? rssMb : Math.min(x.lowest, rssMb);
    }
  }
  for (const x of samples) Object.assign(x, residentMb(x.pid));
  for (const x of samples)
    if (x.child.exitCode !== null || x.child.signalCode !== null)
      log(`${x.target} (pid ${x.pid}) exited while idle: its row stops where it did`);
}

function report(targets: Target[], samples: Sample[]): void {
  console.log(
    `\nbench:idle — ${PROCESSES} process(es) per target, left alone ${WINDOW_MS / 1000} s after the last start, same run\n`,
  );
  console.log(
    "| target | process | RSS 2 s after ready MB | RSS idle (lowest) MB | at the end: file pages MB | anonymous MB |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const t of targets)
    samples
      .filter((x) => x.target === t.name)
      .forEach((x, i) =>
        console.log(
          `| ${t.name} | ${i + 1} | ${fmt(x.started)} | ${fmt(x.lowest)} | ${fmt(x.fileMb)} | ${fmt(x.anonMb)} |`,
        ),
      );
  console.log("\n| target | idle RSS lowest MB | median MB | highest MB | median anonymous MB |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const t of targets) {
    const mine = samples.filter((x) => x.target === t.name && !Number.isNaN(x.lowest));
    const idle = mine.map((x) => x.lowest);
    console.log(
      `| ${t.name} | ${fmt(Math.min(...idle))} | ${fmt(median(idle))} | ${fmt(Math.max(...idle))} | ${fmt(median(mine.map((x) => x.anonMb)))} |`,
    );
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
