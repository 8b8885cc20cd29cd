/*
 * `npm run demo`: a self-contained tour with no credentials. Starts the Insight Service
 * emulator, a stand-in Slack and the app, plays a realistic sequence and says where to look.
 * Reads REDIS_URL, REDIS_PREFIX and DEMO_OUT_DIR; `-- --keep` keeps it running afterwards;
 * `-- --workspaces 2` plays the two-workspace tour instead (multi-workspace mode).
 */
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { dropPrefix, findRedis } from "./redis.js";
import { runTour } from "./tour.js";
import { runWorkspacesTour } from "./workspaces-tour.js";
import { parseDemoArgs } from "./args.js";

const USAGE = [
  "usage: npm run demo [-- [--keep] [--workspaces 1|2]]",
  "  --keep          stay up after the tour, until Ctrl-C",
  "  --workspaces 2  one deployment, two Slack workspaces installed with Add to Slack, side by side",
].join("\n");

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes("--help") || args.includes("-h")) {
    console.log(USAGE);
    return 0;
  }
  const flags = parseDemoArgs(args);
  if ("error" in flags) {
    console.error(`demo: ${flags.error}\n${USAGE}`);
    return 2;
  }
  const wanted = process.env.REDIS_URL?.trim() || "redis://127.0.0.1:6379";
  const redis = await findRedis(wanted);
  if (typeof redis === "string") {
    console.error(`demo: ${redis}`);
    return 1;
  }
  const prefix = process.env.REDIS_PREFIX?.trim() || `demo-${randomBytes(4).toString("hex")}`;
  const outDir = resolve(process.env.DEMO_OUT_DIR?.trim() || "data/demo");
  const write = (s: string) => void process.stdout.write(s);
  write("Insight Relay demo: no credentials needed, nothing leaves this machine.\n");
  if (redis.origin === "throwaway") {
    write(`(no Redis answered at ${wanted}: using a throwaway redis-server at ${redis.url})\n`);
  }
  const keepUntil = flags.keep
    ? new Promise<void>((done) => {
        process.once("SIGINT", () => done());
        process.once("SIGTERM", () => done());
      })
    : undefined;
  const started = Date.now();
  const tour = flags.workspaces === 2 ? runWorkspacesTour : runTour;
  const result = await tour({ redisUrl: redis.url, prefix, outDir, write, keepUntil });
  await dropPrefix(redis.url, prefix).catch(() => undefined);
  await redis.stop();
  if (result.problems.length) {
    write(`\nThe demo found ${result.problems.length} problem(s):\n`);
    for (const line of result.problems) write(`  - ${line}\n`);
    return 1;
  }
  write(
    `\nDemo finished in ${((Date.now() - started) / 1000).toFixed(1)} s. Next: npm run doctor, then docker compose up.\n`,
  );
  return 0;
}

main()
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
