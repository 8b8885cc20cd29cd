// An app process (any ROLE) for tests and benchmarks: configured from env like main, plus
// tunings (short BullMQ locks, no throttle) passed as JSON in TEST_TUNING. ROLE=all runs its
// worker and scheduler roles on a second thread, as `npm start` does (this script is its entry too).
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { buildServices, type RuntimeTuning } from "../../src/compose/build-services.js";
import { isRolesThread } from "../../src/compose/roles-thread-protocol.js";
import { runRolesThread } from "../../src/compose/run-roles-thread.js";
import { startProcess } from "../../src/compose/start-process.js";

if (isRolesThread()) {
  await runRolesThread();
} else {
  const parsed = loadConfig(process.env);
  if (!parsed.ok) {
    console.error(parsed.errors.join("\n"));
    process.exit(1);
  }
  const tuning = JSON.parse(process.env.TEST_TUNING ?? "{}") as RuntimeTuning;
  const services = buildServices(parsed.config, createLogger({ level: parsed.config.logLevel }), tuning);
  const running = await startProcess(services, { threadEntry: new URL(import.meta.url) });
  void running.died?.then((err) => {
    console.error(`app-process: the worker thread stopped: ${err.message}`);
    process.exit(1);
  });
  console.log(`app-ready port=${running.port ?? ""}`);
  // Exit cleanly on SIGINT so a profiler attached to this process can write its profile.
  process.on("SIGINT", () => process.exit(0));
}
