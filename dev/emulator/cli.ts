/*
 * `npm run emulator`: the emulator alone, seeded, until SIGINT/SIGTERM. Besides main, the one
 * place that reads process.env (PORT, HOST, EMULATOR_SEED).
 */
import { parseCliOptions } from "./cli-options.js";
import { startEmulator } from "./server.js";

async function main(): Promise<void> {
  const opts = parseCliOptions(process.argv.slice(2), process.env);
  if (typeof opts === "string") {
    console.error(`emulator: ${opts}`);
    process.exit(2);
  }
  const emu = await startEmulator({
    port: opts.port,
    host: opts.host,
    seed: opts.seed,
    ...(opts.searchParam ? { searchParam: opts.searchParam } : {}),
  });
  console.log(`Insight Service emulator (seed ${opts.seed}) listening on ${emu.baseUrl}/api/v1/`);
  console.log(`INSIGHT_BASE_URL=${emu.baseUrl}`);
  console.log(`INSIGHT_API_KEY=${emu.apiKey}`);
  console.log(`# a key that may read only the "Lumen DB" community (403 elsewhere):`);
  console.log(`INSIGHT_LIMITED_API_KEY=${emu.limitedKey}`);
  console.log(
    `# control: POST ${emu.baseUrl}/_emulator/faults | /_emulator/webhooks (see dev/emulator/README.md)`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`emulator: ${signal}, stopping`);
    void emu.close().then(() => process.exit(0));
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

void main();
