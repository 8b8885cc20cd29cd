// What the benches share about the processes they measure: starting an app (or a ceiling) and
// waiting until it says it is ready, stopping it, and reading its CPU, its RSS and Redis's
// command counts.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Redis } from "ioredis";
import type { Pool } from "undici";
import { threadEvent } from "../dev/emulator/index.js";
import type { EmulatorStore } from "../dev/emulator/store.js";
import type { EmulatedGroup } from "../dev/emulator/types.js";
import ts from "typescript";
import type { bundle as bundleApp } from "../scripts/build.js";

/** User + system CPU of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const { user, kernel } = cpuSplitMs(pid);
  return user + kernel;
}

/**
 * The same CPU, split: in the process's own code (V8, libuv, the C++ of Node's bindings) and in
 * the kernel on its behalf (system calls). Shows whether fewer system calls could pay.
 */
export function cpuSplitMs(pid: number): { user: number; kernel: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) * 10, kernel: Number(fields[12]) * 10 };
}

/**
 * CPU time of a process's threads so far, in ms, to the nanosecond: the sum of each live
 * thread's time on a CPU (/proc/PID/task/TID/schedstat, whose first field is ns). Finer than
 * `cpuMs`'s 10 ms ticks, for idle figures of a fraction of a ms a second; a thread that has
 * exited is no longer counted (Node's and Redis's threads live as long as the process).
 */
export function runMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread has just exited
    }
  }
  return ns / 1e6;
}

/**
 * Read and write system calls a process has made (`/proc/PID/io`: read, write, writev and their
 * kin; socket I/O through them, as Node's streams do it). Counts, so steadier than CPU time
 * on a noisy machine (whose kernel share `cpuSplitMs` gives).
 */
export function ioCalls(pid: number): { reads: number; writes: number } {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, "m").exec(io)?.[1] ?? NaN);
  return { reads: field("syscr"), writes: field("syscw") };
}

/** What a bench hands the app it starts: the stand-ins, Redis, its own prefix and port. */
export interface BenchAppEnv {
  slackUrl: string;
  insightUrl: string;
  insightKey: string;
  webhookSecret: string;
  redisUrl: string;
  prefix: string;
  port: number;
  spoolDir: string;
  tuning: object;
}

/** The environment of the all-in-one app under a bench: production settings, ROLE=all. */
export function benchAppEnv(o: BenchAppEnv): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: "production",
    SLACK_BOT_TOKEN: "xoxb-bench-token",
    SLACK_SIGNING_SECRET: "bench-signing-secret",
    SLACK_API_URL: o.slackUrl,
    INSIGHT_BASE_URL: o.insightUrl,
    INSIGHT_API_KEY: o.insightKey,
    WEBHOOK_SECRET: o.webhookSecret,
    REDIS_URL: o.redisUrl,
    REDIS_PREFIX: o.prefix,
    PORT: String(o.port),
    ROLE: "all",
    SPOOL_DIR: o.spoolDir,
    LOG_LEVEL: process.env.BENCH_DEBUG ? "debug" : "info",
    TEST_TUNING: JSON.stringify(o.tuning),
  };
}

/** A `kB` field of a /proc/PID/status text, in MB (NaN when absent). */
const statusMb = (status: string, field: string): number =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) / 1024;

/** Resident memory of a process now, in MB; throws once the process is gone. */
export function rssMb(pid: number): number {
  return statusMb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmRSS");
}

/**
 * A process's resident memory in MB: file pages (with shared memory, none for Node) and
 * anonymous memory, which sum to VmRSS (/proc/PID/status); NaN once the process is gone.
 */
export function residentMb(pid: number): { rssMb: number; fileMb: number; anonMb: number } {
  let status = "";
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    // gone: every figure NaN
  }
  return {
    rssMb: statusMb(status, "VmRSS"),
    fileMb: statusMb(status, "RssFile") + statusMb(status, "RssShmem"),
    anonMb: statusMb(status, "RssAnon"),
  };
}

/** Commands one Redis node has executed (INFO commandstats), those run inside scripts included. */
export async function commandCalls(
  redis: Redis,
): Promise<{ all: number; scripts: number; byName: Map<string, number> }> {
  let all = 0;
  let scripts = 0;
  const byName = new Map<string, number>();
  for (const m of (await redis.info("commandstats")).matchAll(/^cmdstat_([a-z_|]+):calls=(\d+)/gm)) {
    all += Number(m[2]);
    byName.set(m[1] ?? "", Number(m[2]));
    if (/^(evalsha|eval|fcall)$/.test(m[1] ?? "")) scripts += Number(m[2]);
  }
  return { all, scripts, byName };
}

/** Bytes one Redis node has read from its clients (INFO stats `total_net_input_bytes`). */
export async function netInputBytes(redis: Redis): Promise<number> {
  return Number(/^total_net_input_bytes:(\d+)/m.exec(await redis.info("stats"))?.[1] ?? NaN);
}

const startupMs = new WeakMap<ChildProcess, number>();

/** How long the process took from spawn to saying `ready port=`. */
export const startedInMs = (child: ChildProcess): number | undefined => startupMs.get(child);

/**
 * Runs `node [nodeFlags] [--import tsx] ...cmd` and resolves once it prints `ready port=` (the
 * app's test entry points and the ceilings do). `BENCH_DEBUG=1` shows its output.
 */
export function spawnReady(
  cmd: string[],
  o: { env: NodeJS.ProcessEnv; tsx: boolean; cwd?: string; nodeFlags?: string[]; timeoutMs?: number },
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...(o.nodeFlags ?? []), ...(o.tsx ? ["--import", "tsx"] : []), ...cmd],
      {
        env: o.env,
        ...(o.cwd ? { cwd: o.cwd } : {}),
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const started = performance.now();
    // A process that never says it is ready is stopped, not left running after the bench.
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${cmd.join(" ")} did not start`));
    }, o.timeoutMs ?? 120_000);
    child.stdout?.on("data", (d: Buffer) => {
      if (process.env.BENCH_DEBUG) process.stderr.write(d);
      if (/ready port=/.test(d.toString())) {
        clearTimeout(timer);
        startupMs.set(child, performance.now() - started);
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`${cmd.join(" ")} exited ${code}`)));
  });
}

/** Stops a process and waits for it (SIGINT lets a `--cpu-prof` process write its profile). */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await exited;
}

/** The Node flags `npm start` gives `node` in that checkout, so `--app dist` measures what ships. */
export function startFlags(dir = "."): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { scripts?: { start?: string } };
  return (pkg.scripts?.start ?? "").split(/\s+/).filter((t) => t.startsWith("--"));
}

const bundled = new Map<string, Promise<string>>();

/**
 * The compiled app of a checkout (`--app dist`), as a script for `node`: test/helpers/app-process.ts
 * (the app configured from env, plus TEST_TUNING) bundled by that checkout's scripts/build.ts as
 * `npm run build` bundles src/main.ts, once per checkout, into its node_modules/.cache. A checkout
 * from before the bundle (no scripts/build.ts) runs its own bench/targets/app-dist.mjs over the
 * dist/ that its `npm run build` made.
 */
export function appScript(dir = "."): Promise<string> {
  const root = resolve(dir);
  let script = bundled.get(root);
  if (!script) {
    script = (async () => {
      const builder = join(root, "scripts/build.ts");
      if (!existsSync(builder)) return "bench/targets/app-dist.mjs";
      const { bundle } = (await import(pathToFileURL(builder).href)) as { bundle: typeof bundleApp };
      const id = createHash("sha256").update(root).digest("hex").slice(0, 12);
      const outdir = join(root, "node_modules/.cache", `insight-relay-bench-${id}`);
      await bundle({ entryPoints: ["test/helpers/app-process.ts"], outdir, root });
      return join(outdir, "app-process.js");
    })();
    bundled.set(root, script);
  }
  return script;
}

/**
 * A bench target (bench/targets/NAME.ts) as JavaScript in bench/out/, by TypeScript's own
 * transpiler (no type check: `npm test` does that), so it runs without the loader, as `--app
 * dist` runs the app: a loader in one process and not the other is not a fair comparison.
 */
export function compiledTarget(source: string): string {
  const { outputText } = ts.transpileModule(readFileSync(source, "utf8"), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  mkdirSync("bench/out", { recursive: true });
  const out = join("bench/out", basename(source).replace(/\.ts$/, ".mjs"));
  writeFileSync(out, outputText);
  return out;
}

/**
 * A burst: `n` enrichments of new threads of one group sent to an app's webhook URL, 20 in
 * flight. Each thread is added to the emulator as it is sent, so the newest-first listing pushes
 * the earlier ones of the burst down a place each, as a real burst does.
 */
export async function sendEnrichments(o: {
  pool: Pool;
  path: string;
  store: EmulatorStore;
  group: EmulatedGroup;
  n: number;
}): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next++ < o.n) {
        const thread = o.store.addThread(o.group._id);
        const res = await o.pool.request({
          method: "POST",
          path: o.path,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(threadEvent("updated", o.group, thread, new Date())),
        });
        await res.body.dump();
      }
    }),
  );
}
