// bench:idle — the all-in-one app's idle RSS over several processes at once, beside a baseline
// measured in the same run: the floor (node:http + BullMQ + undici, bench/targets/floor.ts) and,
// with `--before DIR`, the app of another checkout. One process's idle RSS moves by 3-5 MB
// from start to start (V8's memory reducer, thread arenas), so a target like "at most 80 MB"
// is read off the median and the highest of several.
//
//   npm run bench:idle [-- --processes 4 --seconds 45 --before DIR --node-options=FLAGS]
//
// Each app runs compiled (`npm run build` first; `--before`: built there), with the Node flags
// of `npm start` in its checkout. Processes of the targets start interleaved, all at once, and
// are left alone: RSS 2 s after start, the lowest RSS until `--seconds`, and at the end how much
// of it is file pages (Node's binary, shared libraries) and how much anonymous memory (heap,
// malloc, stacks).
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startEmulator } from "../dev/emulator/index.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { dropPrefix, freePort, redisServerInstalled, startThrowawayRedis } from "../dev/local-redis.js";
import { benchAppEnv, compiledTarget, rssMb, spawnReady, startFlags, stopChild } from "./processes.js";

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
const PROCESSES = Math.max(1, Number(args.processes));
const WINDOW_MS = Math.max(5, Number(args.seconds)) * 1000;
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
  prefix: string;
  started: number;
  lowest: number;
  fileMb: number;
  anonMb: number;
}

/** Resident file pages and anonymous memory of a process, in MB (/proc/PID/smaps_rollup). */
function residentSplit(pid: number): { fileMb: number; anonMb: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? NaN);
  const anon = kb("Anonymous");
  return { fileMb: (kb("Rss") - anon) / 1024, anonMb: anon / 1024 };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
}

const fmt = (n: number) => (Number.isNaN(n) ? "-" : n.toFixed(1));

async function main(): Promise<void> {
  const own = redisServerInstalled() ? await startThrowawayRedis() : undefined;
  const redisUrl = own?.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const emulator = await startEmulator();
  const slack = await startSlackStandIn();
  const spool = mkdtempSync(join(tmpdir(), "bench-idle-spool-"));
  const prefix = `bench-idle-${process.pid}`;

  const appTarget = (name: string, cwd: string | undefined, extra: string[]): Target => ({
    name,
    start: (port, pre) =>
      spawnReady(["bench/targets/app-dist.mjs"], {
        env: benchAppEnv({
          slackUrl: slack.url,
          insightUrl: emulator.baseUrl,
          insightKey: emulator.apiKey,
          webhookSecret: "bench-webhook-secret-0123456789",
          redisUrl,
          prefix: pre,
          port,
          spoolDir: spool,
          tuning: {},
        }),
        tsx: false,
        ...(cwd ? { cwd } : {}),
        nodeFlags: [...startFlags(cwd), ...extra],
        timeoutMs: 120_000,
      }),
  });
  const targets: Target[] = [appTarget("insight-relay all (dist)", undefined, flagsOf(args["node-options"]))];
  if (args.before)
    targets.push(appTarget("insight-relay all (before)", args.before, flagsOf(args["before-node-options"])));
  if (args.floor) {
    // Run as the app runs: compiled, with `npm start`'s flags, so the difference is the app's code.
    const floorJs = compiledTarget("bench/targets/floor.ts");
    targets.push({
      name: "floor: node:http + BullMQ (2 jobs) + undici",
      start: (port, pre) =>
        spawnReady([floorJs, String(port), redisUrl, slack.url, pre, "2", "C0BENCHIDLE"], {
          env: process.env,
          tsx: false,
          nodeFlags: startFlags(),
          timeoutMs: 120_000,
        }),
    });
  }

  // Interleaved (a, b, floor, a, b, floor, ...) and all at once, so the machine treats them alike.
  const samples: Sample[] = [];
  let seq = 0;
  for (let i = 0; i < PROCESSES; i++) {
    for (const t of targets) {
      const pre = `${prefix}-${seq++}`;
      log(`starting ${t.name} #${i + 1}`);
      const child = await t.start(await freePort(), pre);
      const pid = child.pid ?? 0;
      samples.push({
        target: t.name,
        child,
        pid,
        prefix: pre,
        started: NaN,
        lowest: Infinity,
        fileMb: NaN,
        anonMb: NaN,
      });
    }
  }
  log(`all ${samples.length} processes started; left alone for ${WINDOW_MS / 1000} s`);
  await sleep(2_000);
  for (const s of samples) s.started = rssMb(s.pid);
  for (const end = Date.now() + WINDOW_MS - 2_000; Date.now() < end;) {
    await sleep(250);
    for (const s of samples) s.lowest = Math.min(s.lowest, rssMb(s.pid));
  }
  for (const s of samples) Object.assign(s, residentSplit(s.pid));
  for (const s of samples) await stopChild(s.child);

  console.log(
    `\nbench:idle — ${PROCESSES} process(es) per target, left alone ${WINDOW_MS / 1000} s, same run\n`,
  );
  console.log(
    "| target | process | RSS 2 s after start MB | RSS idle (lowest) MB | at the end: file pages MB | anonymous MB |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const t of targets)
    samples
      .filter((s) => s.target === t.name)
      .forEach((s, i) =>
        console.log(
          `| ${t.name} | ${i + 1} | ${fmt(s.started)} | ${fmt(s.lowest)} | ${fmt(s.fileMb)} | ${fmt(s.anonMb)} |`,
        ),
      );
  console.log("\n| target | idle RSS lowest MB | median MB | highest MB | median anonymous MB |");
  console.log("| --- | --- | --- | --- | --- |");
  for (const t of targets) {
    const mine = samples.filter((s) => s.target === t.name);
    const idle = mine.map((s) => s.lowest);
    console.log(
      `| ${t.name} | ${fmt(Math.min(...idle))} | ${fmt(median(idle))} | ${fmt(Math.max(...idle))} | ${fmt(median(mine.map((s) => s.anonMb)))} |`,
    );
  }

  await Promise.all(samples.map((s) => dropPrefix(redisUrl, s.prefix)));
  await slack.close();
  await emulator.close();
  await own?.close();
  rmSync(spool, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
