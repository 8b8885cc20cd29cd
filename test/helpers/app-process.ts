// An app process (any ROLE) for tests and benchmarks: configured from env like main, plus
// tunings (short BullMQ locks, no throttle) passed as JSON in TEST_TUNING.
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { buildServices, type RuntimeTuning } from "../../src/compose/build-services.js";
import { startRoles } from "../../src/compose/start-roles.js";

const parsed = loadConfig(process.env);
if (!parsed.ok) {
  console.error(parsed.errors.join("\n"));
  process.exit(1);
}
const tuning = JSON.parse(process.env.TEST_TUNING ?? "{}") as RuntimeTuning;
const services = buildServices(parsed.config, createLogger({ level: parsed.config.logLevel }), tuning);
const running = await startRoles(services);
console.log(`app-ready port=${running.port ?? ""}`);
// Exit cleanly on SIGINT so a profiler attached to this process can write its profile.
process.on("SIGINT", () => process.exit(0));
