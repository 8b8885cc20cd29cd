import type { Feature } from "../feature.js";
import { QUEUE_NAMES } from "../jobs/job-types.js";
import { keepScheduled, type ScheduledQueue } from "../jobs/keep-scheduled.js";
import type { Logger } from "../log.js";
import type { Reconciler } from "./reconciler.js";

export const RECONCILE_SCHEDULER_ID = "reconcile";

/** One workspace's reconciler. */
export interface ReconcileFeatureDeps {
  reconciler: Pick<Reconciler, "run">;
}

export interface ReconcileOptions {
  /** The deployment's reconcile queue, where its one job scheduler lives (a getter: see `healingQueue`). */
  queue: () => ScheduledQueue;
  /** RECONCILE_INTERVAL, in seconds. */
  intervalSeconds: number;
  logger: Logger;
}

/**
 * Rule 9: runs the reconciler every RECONCILE_INTERVAL seconds in the scheduler role, for each
 * workspace connected to a service.
 *
 * Why a BullMQ job scheduler rather than a timer: the schedule lives in Redis, so several
 * scheduler processes upserting it make one job per interval between them (not one each),
 * a restart does not reset the clock, and the runs show up with the other queues in the
 * admin board. Its worker runs in the scheduler role too (concurrency 1), so `ROLE=worker`
 * processes never read the API for it. A run that outlasts the interval could still meet the
 * next job in another process: the Reconciler's own Redis lock makes that one skip.
 */
export function reconcileFeature<Command>(o: ReconcileOptions): Feature<ReconcileFeatureDeps, Command> {
  return {
    name: "reconcile",
    workers: [
      {
        queue: QUEUE_NAMES.reconcile,
        role: "scheduler",
        concurrency: 1,
        eachWorkspace: async (deps) => {
          const r = await deps.reconciler.run();
          return { ran: r.ran, sent: r.sent, deferred: r.deferred, incident: r.incident ?? null };
        },
        // Nothing followed and no incident to close: nothing to read or decide.
        dueWhen: ["subscriptions", "incidents"],
      },
    ],
    startScheduler: () =>
      keepScheduled({
        queue: o.queue,
        schedulerId: RECONCILE_SCHEDULER_ID,
        name: "reconcile",
        everyMs: o.intervalSeconds * 1000,
        what: "reconciler",
        logger: o.logger,
      }),
  };
}
