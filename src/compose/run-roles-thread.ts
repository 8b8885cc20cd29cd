import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { loadConfig, secretsOf } from "../config.js";
import { createLogger } from "../log.js";
import { buildServices, closeServices } from "./build-services.js";
import {
  answerQuestions,
  type FromRoles,
  type Port,
  type RolesThreadData,
  type ToRoles,
} from "./roles-thread-protocol.js";
import { startRoles } from "./start-roles.js";

/**
 * The roles thread of an all-in-one process (start-process.ts): its own clients and stores over
 * the same configuration (the thread's copy of the process's environment), the worker and
 * scheduler roles, and answers to the web thread until it is told to stop. The web thread ran
 * the start migrations already, and runs the process's health watch over these workers.
 */
export async function runRolesThread(): Promise<void> {
  const port = parentPort as Port<FromRoles, ToRoles> | null;
  if (!port) throw new Error("runRolesThread runs on a worker thread");
  const data = workerData as RolesThreadData;
  const result = loadConfig(process.env);
  if (!result.ok) {
    // The web thread read the same environment first; this is only a guard.
    port.postMessage({ kind: "start-failed", message: result.errors.join("; ") });
    return;
  }
  const config = result.config;
  yieldToTheWebThread();
  const logger = createLogger({ level: config.logLevel, secrets: secretsOf(config) }).child({
    thread: "roles",
  });
  // Process-wide figures (CPU, memory, the event loop's lag) are the web thread's to report.
  const services = buildServices(config, logger, data.tuning, { defaultMetrics: false });
  // The migration ran on the web thread: without this, every lookup of a card not found read
  // its old-layout key too (about one command a delivery at 100/s).
  services.legacyRefs.mayRemain = data.legacyRefsRemain;
  let running: Awaited<ReturnType<typeof startRoles>>;
  try {
    running = await startRoles(services, {}, { roles: data.roles, migrate: false, watch: false });
  } catch (err) {
    port.postMessage({ kind: "start-failed", message: err instanceof Error ? err.message : String(err) });
    await closeServices(services);
    return;
  }
  const roles = running;
  answerQuestions(port, {
    probe: async () => (await roles.workerHealth?.probe()) ?? [],
    metrics: () => services.metrics.registry.getMetricsAsJSON(),
    forget: (id) => roles.workspaces.forget(id),
    stop: async () => {
      await roles.stop().catch((err: unknown) => logger.warn({ err }, "stopping the worker thread's roles"));
      await closeServices(services);
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
      // Ends this thread only; what is left open (a timer, a socket closing) does not keep it.
      setImmediate(() => process.exit(0));
    },
  });
  port.postMessage({ kind: "started", queueNames: roles.workerHealth?.queueNames() ?? [] });
}

/**
 * How much lower this thread runs than the web thread when both want a core (Linux nice: about a
 * tenth of the web thread's share then). The work waits in Redis and catches up once the web
 * thread is idle; an acknowledgement that waited for a core could cost the webhook (rule 1).
 */
const NICER_BY = 10;

/**
 * Lowers this thread's priority alone: on Linux a thread is a task of its own and setpriority
 * takes its id (/proc/thread-self names it). Elsewhere, or refused, the thread keeps the process's.
 */
function yieldToTheWebThread(): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + NICER_BY));
  } catch {
    // Not Linux, or not allowed: both threads share the cores evenly.
  }
}
