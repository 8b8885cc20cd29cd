// bench:steady's tables: one row per app and measurement, the app under test beside `--before`,
// and each target of issue 38 checked against this run's own figures.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import type { IdleFigures } from "./steady-idle.js";
import type { MemoryFigures } from "./steady-memory.js";
import type { OneConnFigures } from "./steady-oneconn.js";
import type { RateFigures } from "./steady-rate.js";
import type { WindowFigures } from "./steady-window.js";
import { fmt, overFloor, per, type Verdict } from "./steady-figures.js";

/** Redis's CPU per second of floor, as the rate rows' windows measured it. */
const floorPerSecond = (r: RateFigures) => per(r.window.floorCpuMs, r.window.seconds);

/** CPU per delivery of the app, of Redis (raw and over the floor) and both (over the floor). */
export function rateCosts(r: RateFigures): {
  app: number;
  redisRaw: number;
  redis: number;
  together: number;
} {
  const app = per(r.window.appCpuMs, r.ok);
  const redisRaw = per(r.window.redisCpuMs, r.ok);
  const redis = per(overFloor(r.window.redisCpuMs, floorPerSecond(r), r.window.seconds), r.ok);
  return { app, redisRaw, redis, together: app + redis };
}

export function printRateRows(rows: RateFigures[]): void {
  if (rows.length === 0) return;
  console.log(
    "\n| row | target | deliveries | 2xx | late | cards posted / expected | posts | edits | faults answered | app CPU ms/delivery | Redis CPU ms/delivery raw | over the floor | together | Redis cmds/delivery | ack p50 ms | ack p99 ms | window s |",
  );
  console.log(
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  for (const r of rows) {
    const c = rateCosts(r);
    const cards = `${r.cards} / ${r.expectedCards}${r.settled ? "" : " (not settled in 3 min)"}`;
    console.log(
      `| ${r.row} | ${r.target} | ${r.deliveries} | ${r.ok} | ${r.late} | ${cards} | ${r.posts} | ${r.edits} | ${r.faults} | ${fmt(c.app, 2)} | ${fmt(c.redisRaw, 2)} | ${fmt(c.redis, 2)} | ${fmt(c.together, 2)} | ${fmt(per(r.window.commands, r.ok), 1)} | ${fmt(r.ackP50, 2)} | ${fmt(r.ackP99, 2)} | ${fmt(r.window.seconds, 1)} |`,
    );
  }
  const floor = rows.map(floorPerSecond).filter(Number.isFinite);
  console.log(
    `\nthe floor (a bare redis-server, no client) in these windows: ${floor.map((f) => fmt(f, 2)).join(", ")} ms of CPU a second`,
  );
}

/** Redis commands per delivery by name (0.05 or more), per row and target. */
export function printCommandsByName(rows: RateFigures[]): void {
  for (const r of rows) {
    const names = [...r.window.byName]
      .map(([name, n]): [string, number] => [name, n / r.ok])
      .filter(([, n]) => n >= 0.05)
      .sort((a, b) => b[1] - a[1]);
    console.log(`  ${r.row}, ${r.target}: ${names.map(([name, n]) => `${name} ${fmt(n, 2)}`).join(", ")}`);
  }
}

export function printVerdicts(verdicts: Verdict[]): void {
  if (verdicts.length === 0) return;
  console.log("\n| target (issue 38) | this run | met |");
  console.log("| --- | --- | --- |");
  for (const v of verdicts) console.log(`| ${v.target} | ${v.figure} | ${v.pass ? "yes" : "no"} |`);
}

/** Idle costs a second: the app, its Redis raw and over the floor, the floor; ticks and run time. */
export function idleCosts(w: WindowFigures): {
  app: number;
  appRun: number;
  redis: number;
  redisRun: number;
  redisOver: number;
  redisRunOver: number;
  floor: number;
  floorRun: number;
  commands: number;
} {
  const s = w.seconds;
  return {
    app: per(w.appCpuMs, s),
    appRun: per(w.appRunMs, s),
    redis: per(w.redisCpuMs, s),
    redisRun: per(w.redisRunMs, s),
    redisOver: per(overFloor(w.redisCpuMs, per(w.floorCpuMs, s), s), s),
    redisRunOver: per(overFloor(w.redisRunMs, per(w.floorRunMs, s), s), s),
    floor: per(w.floorCpuMs, s),
    floorRun: per(w.floorRunMs, s),
    commands: per(w.commands, s),
  };
}

export function printIdleRows(title: string, rows: IdleFigures[]): void {
  if (rows.length === 0) return;
  console.log(`\n${title}`);
  console.log(
    "| target | window s | app CPU ms/s (ticks) | app ms/s (run time) | Redis ms/s raw (run time) | the floor ms/s (run time) | Redis over the floor ms/s (run time) | Redis cmds/s | commands a second by name |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    const c = idleCosts(r.window);
    const names = [...r.window.byName]
      .map(([name, n]): [string, number] => [name, n / r.window.seconds])
      .filter(([name, n]) => n >= 0.05 && name !== "info")
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name} ${fmt(n, 2)}`)
      .join(", ");
    console.log(
      `| ${r.target} | ${fmt(r.window.seconds, 1)} | ${fmt(c.app, 2)} | ${fmt(c.appRun, 2)} | ${fmt(c.redis, 2)} (${fmt(c.redisRun, 2)}) | ${fmt(c.floor, 2)} (${fmt(c.floorRun, 2)}) | ${fmt(c.redisOver, 2)} (${fmt(c.redisRunOver, 2)}) | ${fmt(c.commands, 1)} | ${names} |`,
    );
  }
}

export function printMemoryRows(rows: MemoryFigures[]): void {
  if (rows.length === 0) return;
  console.log(
    "\nbytes kept per card: new threads sent 20 in flight; after the queues drained and the completed jobs were removed",
  );
  console.log(
    "| target | cards posted / sent | used_memory growth B/card | the app's keys (not BullMQ's) B/card | BullMQ's keys B/card | biggest key families of the app: keys and B a card |",
  );
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    const families = r.families
      .filter((f) => Math.abs(f.bytes) >= 1)
      .slice(0, 6)
      .map((f) => `\`${f.family}\` ${fmt(f.keys, 2)} × ${fmt(f.bytes, 0)} B`)
      .join(", ");
    console.log(
      `| ${r.target} | ${r.cards} / ${r.expected} | ${fmt(r.usedMemoryPerCard, 0)} | ${fmt(r.appKeysPerCard, 0)} | ${fmt(r.queueKeysPerCard, 0)} | ${families} |`,
    );
  }
}

/** Each app's deliveries a second as a share of the bare Express route's in the same row. */
export const ofExpress = (r: OneConnFigures, rows: OneConnFigures[]): number =>
  per(r.perSecond, rows.find((x) => x.kind === "express")?.perSecond ?? NaN);

export function printOneConnRows(rows: OneConnFigures[], seconds: number): void {
  if (rows.length === 0) return;
  console.log(
    `\none connection, the mix, as fast as it is acknowledged (autocannon, 1 connection, ${seconds} s after a warm-up; each app drained before its row)`,
  );
  console.log(
    "| target | deliveries/s | of Express | ack p50 ms | ack p99 ms | non-2xx | app CPU ms/delivery (until drained) | drained s after the load |",
  );
  console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const r of rows) {
    console.log(
      `| ${r.target} | ${fmt(r.perSecond, 0)} | ${fmt(100 * ofExpress(r, rows), 0)}% | ${fmt(r.ackP50, 0)} | ${fmt(r.ackP99, 0)} | ${r.non2xx} | ${fmt(r.cpuPerDelivery, 2)} | ${fmt(r.drainSeconds, 1)} |`,
    );
  }
  if (rows.some((r) => r.kind === "web"))
    console.log(
      "web role alone: the same app with ROLE=web and no worker anywhere (its CPU is the acknowledgement's alone; nothing is processed, the intake only grows): the floor of the all-in-one figure, not the product's",
    );
}

/** A V8 CPU profile's start, in µs of the clock every thread of a process shares. */
const profileStartUs = (file: string): number =>
  (JSON.parse(readFileSync(file, "utf8")) as { startTime: number }).startTime;

/**
 * `--profile`: each app's profile of the rate row, from the window's start, by bench/top-frames.ts;
 * one per thread (an all-in-one app's roles thread starts after its main thread: its window
 * starts as much earlier in its own profile).
 */
export function printProfiles(rows: RateFigures[], top = 15): void {
  for (const r of rows) {
    if (!r.profile) continue;
    const [main, ...others] = r.profile.files;
    if (!main) continue;
    const windowUs = profileStartUs(main) + r.profile.skipMs * 1000;
    for (const [i, file] of [main, ...others].entries()) {
      const skipMs = Math.max(0, (windowUs - profileStartUs(file)) / 1000);
      const thread = r.profile.files.length > 1 ? (i === 0 ? ", web thread" : ", roles thread") : "";
      console.log(
        `\nprofile of ${r.target}, ${r.row}${thread} (the window only: the first ${fmt(skipMs, 0)} ms left out; the profiler adds to that row's CPU)`,
      );
      console.log(
        execFileSync(
          process.execPath,
          [
            "--import",
            "tsx",
            "bench/top-frames.ts",
            file,
            String(top),
            "--skip-ms",
            String(Math.round(skipMs)),
          ],
          { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 },
        ),
      );
    }
  }
}
