// bench:steady's tables: one row per app and measurement, the app under test beside `--before`,
// and each target of issue 38 checked against this run's own figures.
import type { RateFigures } from "./steady-rate.js";
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
