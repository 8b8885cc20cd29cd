/*
 * `npm run doctor`: checks the configuration, Redis, the Insight API key and the Slack token,
 * and prints the webhook URL to paste. Reads .env like main; exits 1 when any check fails.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { runDoctor } from "./doctor/run.js";

async function main(): Promise<void> {
  const envFile = existsSync(".env") ? resolve(".env") : undefined;
  if (envFile) process.loadEnvFile(envFile);
  process.exitCode = await runDoctor({
    env: process.env,
    argv: process.argv.slice(2),
    envFile,
    out: (line) => console.log(line),
  });
}

main().catch((err: unknown) => {
  console.error(`doctor: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
