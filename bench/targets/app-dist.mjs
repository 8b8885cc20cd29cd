// test/helpers/app-process.ts over the compiled app (dist/, `npm run build`): the same
// environment and TEST_TUNING, without the TypeScript loader, for bench:pipeline --app dist.
import { loadConfig } from "../../dist/config.js";
import { createLogger } from "../../dist/log.js";
import { buildServices } from "../../dist/compose/build-services.js";
import { startRoles } from "../../dist/compose/start-roles.js";

const parsed = loadConfig(process.env);
if (!parsed.ok) {
  console.error(parsed.errors.join("\n"));
  process.exit(1);
}
const tuning = JSON.parse(process.env.TEST_TUNING ?? "{}");
const services = buildServices(parsed.config, createLogger({ level: parsed.config.logLevel }), tuning);
const running = await startRoles(services);
console.log(`app-ready port=${running.port ?? ""}`);
process.on("SIGINT", () => process.exit(0));
