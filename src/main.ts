import { existsSync } from "node:fs";
import { loadConfig, secretsOf } from "./config.js";
import { buildServices, closeServices } from "./compose/build-services.js";
import { isRolesThread } from "./compose/roles-thread-protocol.js";
import { runRolesThread } from "./compose/run-roles-thread.js";
import { startProcess } from "./compose/start-process.js";
import { createLogger, debugOnFailure } from "./log.js";

/**
 * Entry point and composition root: read the configuration once, build the clients and stores
 * (compose/build-services.ts), hand each feature its narrow dependencies (compose/features.ts),
 * start the roles (compose/start-process.ts: with ROLE=all, the worker and scheduler roles run on
 * a second thread, which enters this same script), stop cleanly on SIGTERM.
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
  const running = await startProcess(services, { threadEntry: new URL(import.meta.url) });
  logger.info({ role: config.role, port: running.port }, "insight-relay started");

  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    const force = setTimeout(() => process.exit(1), 15_000).unref();
    await running.stop().catch(debugOnFailure(logger, "stopping the roles"));
    await closeServices(services);
    await new Promise<void>((resolve) => logger.flush(() => resolve()));
    clearTimeout(force);
    process.exit(exitCode);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
  // Without its workers the process would only acknowledge: it stops, for its supervisor to start it again.
  void running.died?.then((err) => {
    logger.error({ err }, "the worker thread has stopped; stopping the process");
    void stop("worker thread stopped", 1);
  });
}

if (isRolesThread()) {
  runRolesThread().catch((err: unknown) => {
    console.error(
      `insight-relay: the worker thread could not start: ${err instanceof Error ? err.message : String(err)}`,
    );
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    // Start-up failures (port in use, ...) get one line, not a stack trace.
    console.error(`insight-relay: could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
