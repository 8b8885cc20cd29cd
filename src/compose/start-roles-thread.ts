import { Worker } from "node:worker_threads";
import type { Logger } from "../log.js";
import {
  RolesThreadClient,
  ROLES_THREAD,
  type FromRoles,
  type Port,
  type RolesThreadData,
  type ThreadMetrics,
  type ToRoles,
} from "./roles-thread-protocol.js";
import type { RuntimeTuning } from "./runtime-tuning.js";
import type { WorkerProbe } from "../jobs/worker-health.js";

/** How long the roles thread may take to start (loading the bundle, connecting, its schedulers' check). */
const START_WITHIN_MS = 120_000;
/** How long a stop waits for the roles thread's own (its workers finish their jobs for up to 10 s). */
const STOP_WITHIN_MS = 13_000;

/** The worker and scheduler roles running on a thread of this process, as the web thread sees them. */
export interface RolesThread {
  /** Readiness over its workers (rule 8), answered by the thread. */
  health: { probe(): Promise<WorkerProbe[]>; queueNames(): string[] };
  /** Its metrics registry, for /metrics. */
  metrics(): Promise<ThreadMetrics>;
  /** A workspace changed (connected, rotated, uninstalled): the thread builds it again on next use. */
  forget(workspaceId: string): void;
  /** Asks it to stop its roles and waits for it to end (terminated past STOP_WITHIN_MS). */
  stop(): Promise<void>;
  /** Settles when the thread has ended without being asked to: with why. */
  readonly died: Promise<Error>;
}

/** The part of a `Worker` used here (tests hand in a stand-in). */
export type ThreadHandle = Port<ToRoles, FromRoles> & {
  once(event: "exit", listener: (code: number) => void): unknown;
  on(event: "error", listener: (err: Error) => void): unknown;
  terminate(): Promise<number>;
};

export interface RolesThreadOptions {
  /** The script the thread runs: the process's own entry, which starts the roles thread when told so. */
  entry: URL;
  roles: RolesThreadData["roles"];
  tuning: RuntimeTuning;
  /** What the start migration left (see `RolesThreadData`). */
  legacyRefsRemain: boolean;
  logger: Logger;
  /** Makes the thread (tests: a stand-in). */
  spawn?: (entry: URL, data: RolesThreadData) => ThreadHandle;
  startWithinMs?: number;
}

const spawnWorker = (entry: URL, data: RolesThreadData): ThreadHandle =>
  new Worker(entry, { workerData: data });

/**
 * Starts the worker and scheduler roles on a thread of their own and waits until it says they
 * are running. The thread is a second event loop in the same process: a batch of deliveries
 * being worked, a weekly summary being rendered, never holds up a webhook's acknowledgement or
 * a slash command's (rule 1), and on two cores the work and the acknowledgements run at once.
 */
export async function startRolesThread(o: RolesThreadOptions): Promise<RolesThread> {
  const thread = (o.spawn ?? spawnWorker)(o.entry, {
    [ROLES_THREAD]: true,
    roles: o.roles,
    tuning: o.tuning,
    legacyRefsRemain: o.legacyRefsRemain,
  });
  let stopping = false;
  let ended = false;
  let onDeath: (err: Error) => void = () => undefined;
  const died = new Promise<Error>((resolve) => (onDeath = resolve));
  let exitedResolve: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => (exitedResolve = resolve));
  let lastError: Error | undefined;
  thread.on("error", (err) => {
    lastError = err;
    o.logger.error({ err }, "the worker thread failed");
  });

  const started = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(
        new Error(`the worker thread did not start within ${(o.startWithinMs ?? START_WITHIN_MS) / 1000} s`),
      );
      void thread.terminate();
    }, o.startWithinMs ?? START_WITHIN_MS);
    const listener = (m: FromRoles) => {
      if (m.kind !== "started" && m.kind !== "start-failed") return;
      clearTimeout(timer);
      thread.off("message", listener);
      if (m.kind === "started") resolve(m.queueNames);
      else reject(new Error(`the worker thread could not start: ${m.message}`));
    };
    thread.on("message", listener);
    thread.once("exit", (code) => {
      ended = true;
      exitedResolve();
      clearTimeout(timer);
      reject(lastError ?? new Error(`the worker thread exited (${code}) before it started`));
    });
  });

  const client = new RolesThreadClient(thread, started);
  thread.once("exit", (code) => {
    ended = true;
    exitedResolve();
    client.close("the worker thread has exited");
    if (!stopping) onDeath(lastError ?? new Error(`the worker thread exited (${code})`));
  });

  return {
    health: { probe: () => client.probe(), queueNames: () => client.queueNames() },
    metrics: () => client.metrics(),
    forget: (id) => {
      if (!ended) client.forget(id);
    },
    stop: async () => {
      if (ended) return;
      stopping = true;
      const bound = setTimeout(() => void thread.terminate(), STOP_WITHIN_MS);
      // Its 'stopped' comes once its roles and connections are closed; the thread then ends.
      thread.postMessage({ kind: "stop" });
      await exited;
      clearTimeout(bound);
    },
    died,
  };
}
