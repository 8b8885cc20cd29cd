// bench:steady — the cost of a running service when it is quiet (issue 38): the end-to-end job
// at a steady rate, one delivery at a time, of a group a channel follows; with API faults; idle;
// the Redis bytes kept per card; one connection as fast as it goes beside a bare Express route;
// many idle workspaces. Each row measures the app of this checkout and, with `--before DIR`, the
// app of that checkout in the same run, their order alternating from row to row.
//
//   npm run bench:steady [-- --rows steady,slow,faults,idle,memory,oneconn,workspaces
//                            --rate 100 --seconds 20 --slow-rate 10 --warmup 200 --oneconn-warmup 10 --idle-seconds 30 --idle-settle 30
//                            --cards 5000 --mix 1:1:3 --workspaces 1,100,1000 --before DIR --profile DIR]
//
// What each row measures and how: bench/README.md, "npm run bench:steady".
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startEmulator, SEED } from "../dev/emulator/index.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { redisServerInstalled } from "../dev/local-redis.js";
import { startOwnRedis } from "./steady-apps.js";
import { inTurn, type AppTarget, type SteadyContext } from "./steady-context.js";
import type { Verdict } from "./steady-figures.js";
import { FAULT_429_EVERY, FAULT_500_EVERY, rateRow, type RateFigures } from "./steady-rate.js";
import { idleRow, type IdleFigures } from "./steady-idle.js";
import { memoryRow, type MemoryFigures } from "./steady-memory.js";
import { oneConnRow, type OneConnFigures } from "./steady-oneconn.js";
import { verdictsOf } from "./steady-verdicts.js";
import { TRAFFICKED, TRICKLE_EVERY_MS, workspacesRow, type WorkspacesFigures } from "./steady-workspaces.js";
import {
  printCommandsByName,
  printIdleRows,
  printMemoryRows,
  printOneConnRows,
  printProfiles,
  printRateRows,
  printVerdicts,
} from "./steady-report.js";
import { DEFAULT_MIX, describeMix, parseMix } from "./steady-traffic.js";

const ROWS = ["steady", "slow", "faults", "idle", "memory", "oneconn", "workspaces"] as const;
type RowName = (typeof ROWS)[number];

const { values: args } = parseArgs({
  options: {
    rows: { type: "string", default: ROWS.join(",") },
    rate: { type: "string", default: "100" },
    "slow-rate": { type: "string", default: "10" },
    seconds: { type: "string", default: "20" },
    // A rate row is measured once its work is steady: a card's counts edit comes at the end of
    // its thread's 3-minute window, so until 3 minutes have passed the edits of the messages
    // sent so far are still to come (a 10-s warm-up saw 14 in a 20-s window, a 200-s one 160).
    warmup: { type: "string", default: "200" },
    // One connection as fast as it goes: a longer warm-up only piles up work to drain.
    "oneconn-warmup": { type: "string", default: "10" },
    "idle-seconds": { type: "string", default: "30" },
    // An app's first seconds are its start-up's (compiling, the first run of its reconciler and
    // schedulers, V8's memory reducer): measured on this machine, 28 ms/s in the first 10 s,
    // 2 ms/s in the next, then flat; an idle service is one that has run a while.
    "idle-settle": { type: "string", default: "30" },
    cards: { type: "string", default: "5000" },
    mix: { type: "string" },
    before: { type: "string" },
    profile: { type: "string" },
    "node-options": { type: "string", default: "" },
    "before-node-options": { type: "string", default: "" },
    workspaces: { type: "string", default: "1,100,1000" },
  },
});
const rows = new Set(
  (args.rows ?? "").split(",").map((r): RowName => {
    if (!(ROWS as readonly string[]).includes(r)) throw new Error(`--rows takes ${ROWS.join(",")}; not ${r}`);
    return r as RowName;
  }),
);
const RATE = Number(args.rate);
const IDLE_SECONDS = Number(args["idle-seconds"]);
const WORKSPACES = (args.workspaces ?? "")
  .split(",")
  .map(Number)
  .filter((n) => n > 0);
const IDLE_SETTLE_SECONDS = Number(args["idle-settle"]);
const SECONDS = Number(args.seconds);
const mix = args.mix ? parseMix(args.mix) : DEFAULT_MIX;
const log = (s: string) => process.stderr.write(`${s}\n`);
const flagsOf = (s: string | undefined) => (s ?? "").split(/\s+/).filter(Boolean);

/** `after (a73dffa)` / `before (fb707ca)`: which commit each app is. */
function commitOf(dir: string): string {
  try {
    return execFileSync("git", ["-C", dir, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return "?";
  }
}

async function main(): Promise<void> {
  if (!redisServerInstalled())
    throw new Error("bench:steady needs redis-server on the PATH (a Redis per app)");
  const targets: AppTarget[] = [
    { name: `after (${commitOf(".")})`, nodeFlags: flagsOf(args["node-options"]) },
  ];
  if (args.before)
    targets.push({
      name: `before (${commitOf(args.before)})`,
      dir: resolve(args.before),
      nodeFlags: flagsOf(args["before-node-options"]),
    });
  const emulator = await startEmulator();
  const slack = await startSlackStandIn();
  const floor = await startOwnRedis();
  const spool = mkdtempSync(join(tmpdir(), "bench-steady-spool-"));
  let groups = 0;
  const freshGroup = () =>
    emulator.store.addGroup(SEED.communities.primary, { name: `Bench steady ${++groups}` });
  const profileDir = args.profile ? resolve(args.profile) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const ctx: SteadyContext = {
    world: {
      slackUrl: slack.url,
      insightUrl: emulator.baseUrl,
      insightKey: emulator.apiKey,
      secret: "bench-webhook-secret-0123456789",
      spool,
    },
    emulator,
    slack,
    floor,
    freshGroup,
    mix,
    warmupSeconds: Number(args.warmup),
    oneConnWarmupSeconds: Number(args["oneconn-warmup"]),
    log,
  };
  const rateRows: RateFigures[] = [];
  const idleRows: IdleFigures[] = [];
  const memoryRows: MemoryFigures[] = [];
  const oneConnRows: OneConnFigures[] = [];
  const workspaceRows: WorkspacesFigures[] = [];
  const verdicts: Verdict[] = [];
  let turn = 0;
  try {
    const plan: { name: RowName; row: string; rate: number; faults: boolean }[] = [
      { name: "steady", row: `steady ${RATE}/s`, rate: RATE, faults: false },
      { name: "slow", row: `steady ${args["slow-rate"]}/s`, rate: Number(args["slow-rate"]), faults: false },
      { name: "faults", row: `API faults ${RATE}/s`, rate: RATE, faults: true },
    ];
    for (const p of plan.filter((x) => rows.has(x.name))) {
      for (const t of inTurn(targets, turn++)) {
        rateRows.push(
          await rateRow(ctx, t, {
            row: p.row,
            rate: p.rate,
            seconds: SECONDS,
            faults: p.faults,
            profileDir: profileDir ? join(profileDir, p.name) : undefined,
          }),
        );
      }
    }
    if (rows.has("memory")) {
      for (const t of inTurn(targets, turn++)) memoryRows.push(await memoryRow(ctx, t, Number(args.cards)));
    }
    if (rows.has("oneconn"))
      oneConnRows.push(...(await oneConnRow(ctx, targets, { seconds: SECONDS, turn: turn++ })));
    if (rows.has("idle")) {
      idleRows.push(
        ...(await idleRow(ctx, targets, { seconds: IDLE_SECONDS, settleSeconds: IDLE_SETTLE_SECONDS })),
      );
    }
    const under = targets[0];
    if (rows.has("workspaces") && under) {
      workspaceRows.push(
        ...(await workspacesRow(ctx, under, {
          counts: WORKSPACES,
          seconds: IDLE_SECONDS,
          settleSeconds: IDLE_SETTLE_SECONDS,
          profileDir: profileDir ? join(profileDir, "workspaces") : undefined,
        })),
      );
    }
  } finally {
    await slack.close();
    await emulator.close();
    await floor.close();
    rmSync(spool, { recursive: true, force: true });
  }

  verdicts.push(
    ...verdictsOf({
      target: targets[0]?.name ?? "",
      rate: RATE,
      rateRows,
      idleRows,
      memoryRows,
      oneConnRows,
      workspaceRows,
    }),
  );

  console.log(
    `\nbench:steady — ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), same run, the order of the apps alternating`,
  );
  console.log(
    `traffic: each app started follows a chat group of its own (new in the emulator, so every app reads a group of the same size), one channel following it; mix ${describeMix(mix)}`,
  );
  console.log(
    "each app bundled as `npm run build` bundles it, with `npm start`'s flags, on a redis-server of its own; per-channel throttle off (channelGapMs 0: Slack's pace is not measured)",
  );
  if (rateRows.length > 0) {
    console.log(
      `rate rows: ${args.warmup} s warm-up at the rate (not measured), then ${SECONDS} s, one delivery at a time on one connection; the window runs from the first send until every new thread's card is posted and the intake and queues are empty. API faults: 1 in ${FAULT_500_EVERY} chat.postMessage/chat.update answered 500, then 1 in ${FAULT_429_EVERY} of the rest 429 (Retry-After 1)`,
    );
    printRateRows(rateRows);
    console.log("\nRedis commands per delivery by name (0.05 or more; the bench's polls included)");
    printCommandsByName(rateRows);
  }
  if (idleRows.length > 0) {
    printIdleRows(
      `idle: started, ${IDLE_SETTLE_SECONDS} s to settle, then ${IDLE_SECONDS} s with nothing sent, the apps and the floor over the same window; run time = the threads' time on a CPU to the ns (/proc/PID/task/*/schedstat), ticks = /proc/PID/stat's 10 ms`,
      idleRows,
    );
  }
  printMemoryRows(memoryRows);
  printOneConnRows(oneConnRows, SECONDS);
  if (workspaceRows.length > 0) {
    printIdleRows(
      `many workspaces (the app under test only): installed and connected, ${TRAFFICKED} of them (all, when fewer) following the group and receiving one delivery every ${TRICKLE_EVERY_MS / 1000} s in all, to each in turn; ${IDLE_SETTLE_SECONDS} s to settle, then ${IDLE_SECONDS} s (deliveries sent: ${workspaceRows.map((r) => `${r.workspaces}: ${r.deliveries}`).join(", ")})`,
      workspaceRows,
    );
  }
  printProfiles(rateRows);
  printVerdicts(verdicts);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
