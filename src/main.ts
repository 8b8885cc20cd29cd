import { existsSync } from "node:fs";
import { loadConfig, secretsOf } from "./config.js";
import { buildServices, closeServices } from "./compose/build-services.js";
import { startRoles } from "./compose/start-roles.js";
import { createLogger, debugOnFailure } from "./log.js";

/**
 * Entry point and composition root: read the configuration once, build the clients and stores
 * (compose/build-services.ts), hand each feature its narrow dependencies (compose/features.ts),
 * start the roles (compose/start-roles.ts), stop cleanly on SIGTERM.
 */
async function main(): Promise<void> {
  if (existsSync(".env")) process.loadEnvFile(".env");
  const result = loadConfig(process.env);
  if (!result.ok) {
    for (const line of result.errors) console.error(`insight-relay: ${line}`);
    process.exitCode = 1;
    return;
  }
  const config = result.config;
  const logger = createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const services = buildServices(config, logger);
  const running = await startRoles(services);
  logger.info({ role: config.role, port: running.port }, "insight-relay started");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await running.stop().catch(debugOnFailure(logger, "stopping the roles"));
    await closeServices(services);
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    clearTimeout(force);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err: unknown) => {
  // Start-up failures (port in use, ...) get one line, not a stack trace.
  console.error(`insight-relay: could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
