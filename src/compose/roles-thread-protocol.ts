import { isMainThread, workerData } from "node:worker_threads";
import type { MetricObjectWithValues, MetricValue } from "prom-client";
import type { WorkerProbe } from "../jobs/worker-health.js";
import type { RuntimeTuning } from "./runtime-tuning.js";

/**
 * What the two threads of an all-in-one process say to each other (start-process.ts): the web
 * role's thread asks the roles thread (worker and scheduler) for its workers' readiness and its
 * metrics, and tells it which workspaces changed; the roles thread says when it has started,
 * answers, and says when it has stopped. Structured-clone data only.
 */

/** The roles thread is told so by its `workerData`: the entry script starts it instead of a process. */
export const ROLES_THREAD = "insightRelayRolesThread";

export interface RolesThreadData {
  [ROLES_THREAD]: true;
  roles: ("worker" | "scheduler")[];
  tuning: RuntimeTuning;
  /**
   * Whether card refs of the old layout may still be in Redis: the web thread ran the start
   * migration, and this thread's stores read the old keys only when it left some.
   */
  legacyRefsRemain: boolean;
}

/** Whether this thread is an all-in-one process's roles thread (its entry script runs `runRolesThread`). */
export function isRolesThread(): boolean {
  return !isMainThread && (workerData as Partial<RolesThreadData> | null)?.[ROLES_THREAD] === true;
}

/** A registry's metrics as prom-client hands them between processes (AggregatorRegistry). */
export type ThreadMetrics = MetricObjectWithValues<MetricValue<string>>[];

/** Web thread to roles thread. */
export type ToRoles =
  | { kind: "probe"; id: number }
  | { kind: "metrics"; id: number }
  | { kind: "forget"; workspaceId: string }
  | { kind: "stop" };

/** Roles thread to web thread. */
export type FromRoles =
  | { kind: "started"; queueNames: string[] }
  | { kind: "start-failed"; message: string }
  | { kind: "answer"; id: number; probes?: WorkerProbe[]; metrics?: ThreadMetrics; error?: string }
  | { kind: "stopped" };

/** Either end of the channel: a `Worker` on the web thread, `parentPort` on the roles thread. */
export interface Port<Out, In> {
  postMessage(message: Out): void;
  on(event: "message", listener: (message: In) => void): unknown;
  off(event: "message", listener: (message: In) => void): unknown;
}

/** How long an answer may take before the question fails (readiness bounds its own wait, below this). */
const ANSWER_WITHIN_MS = 2_000;

/**
 * The web thread's side of the questions: each asked with an id, answered by the roles thread
 * (`answerQuestions`), failed when no answer comes in time (the thread is busy or gone).
 */
export class RolesThreadClient {
  private next = 0;
  private readonly waiting = new Map<
    number,
    { resolve: (m: Extract<FromRoles, { kind: "answer" }>) => void; reject: (e: Error) => void }
  >();

  constructor(
    private readonly port: Port<ToRoles, FromRoles>,
    private readonly queues: readonly string[],
    private readonly withinMs = ANSWER_WITHIN_MS,
  ) {
    port.on("message", (m) => {
      if (m.kind !== "answer") return;
      this.waiting.get(m.id)?.resolve(m);
      this.waiting.delete(m.id);
    });
  }

  /** Readiness of the workers over there, as `WorkerHealth.probe` says it. */
  async probe(): Promise<WorkerProbe[]> {
    return (await this.ask("probe")).probes ?? [];
  }

  /** The BullMQ names of the queues its workers consume. */
  queueNames(): string[] {
    return [...this.queues];
  }

  /** Its metrics registry, to be added to this thread's in /metrics. */
  async metrics(): Promise<ThreadMetrics> {
    return (await this.ask("metrics")).metrics ?? [];
  }

  forget(workspaceId: string): void {
    this.port.postMessage({ kind: "forget", workspaceId });
  }

  /** Every question still waiting fails (the thread has exited). */
  close(reason: string): void {
    for (const w of this.waiting.values()) w.reject(new Error(reason));
    this.waiting.clear();
  }

  private ask(kind: "probe" | "metrics"): Promise<Extract<FromRoles, { kind: "answer" }>> {
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the worker thread did not answer within ${this.withinMs} ms`));
      }, this.withinMs);
      this.waiting.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          if (m.error !== undefined) reject(new Error(m.error));
          else resolve(m);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.port.postMessage({ kind, id });
    });
  }
}

/** What the roles thread answers from. */
export interface RolesThreadAnswers {
  probe(): Promise<WorkerProbe[]>;
  metrics(): Promise<ThreadMetrics>;
  forget(workspaceId: string): void;
  /** Stops the roles and closes their connections. */
  stop(): Promise<void>;
}

/** The roles thread's side: answers every question and order from the web thread until told to stop. */
export function answerQuestions(port: Port<FromRoles, ToRoles>, a: RolesThreadAnswers): void {
  const answer = async (
    id: number,
    work: () => Promise<Omit<Extract<FromRoles, { kind: "answer" }>, "kind" | "id">>,
  ) => {
    try {
      port.postMessage({ kind: "answer", id, ...(await work()) });
    } catch (err) {
      port.postMessage({ kind: "answer", id, error: err instanceof Error ? err.message : String(err) });
    }
  };
  const listener = (m: ToRoles) => {
    switch (m.kind) {
      case "probe":
        void answer(m.id, async () => ({ probes: await a.probe() }));
        return;
      case "metrics":
        void answer(m.id, async () => ({ metrics: await a.metrics() }));
        return;
      case "forget":
        a.forget(m.workspaceId);
        return;
      case "stop":
        port.off("message", listener);
        void a.stop().finally(() => port.postMessage({ kind: "stopped" }));
        return;
    }
  };
  port.on("message", listener);
}
