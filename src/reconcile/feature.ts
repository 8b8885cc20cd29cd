import type { Queue } from "bullmq";
import type { Feature } from "../feature.js";
import { QUEUE_NAMES, type ReconcileJob } from "../jobs/queues.js";
import type { Logger } from "../log.js";
import type { Reconciler } from "./reconciler.js";

export const RECONCILE_SCHEDULER_ID = "reconcile";
const RETRY_SETUP_MS = 30_000;

export interface ReconcileFeatureDeps {
  reconciler: Pick<Reconciler, "run">;
  /** A getter: see `healingQueue`. */
  queue: () => Queue<ReconcileJob>;
  /** RECONCILE_INTERVAL, in seconds. */
  intervalSeconds: number;
  logger: Logger;
}

/**
 * Rule 9: runs the reconciler every RECONCILE_INTERVAL seconds in the scheduler role.
 *
 * Why a BullMQ job scheduler rather than a timer: the schedule lives in Redis, so several
 * scheduler processes upserting it make one job per interval between them (not one each),
 * a restart does not reset the clock, and the runs show up with the other queues in the
 * admin board. Its worker runs in the scheduler role too (concurrency 1), so `ROLE=worker`
 * processes never read the API for it. A run that outlasts the interval could still meet the
 * next job in another process: the Reconciler's own Redis lock makes that one skip.
 */
export function reconcileFeature<Command>(deps: ReconcileFeatureDeps): Feature<Command> {
  return {
    name: "reconcile",
    workers: [
      {
        queue: QUEUE_NAMES.reconcile,
        role: "scheduler",
        concurrency: 1,
        processor: async () => {
          const r = await deps.reconciler.run();
          return { ran: r.ran, sent: r.sent, deferred: r.deferred, incident: r.incident ?? null };
        },
      },
    ],
    async startScheduler() {
      let stopped = false;
      let retry: NodeJS.Timeout | undefined;
      const schedule = async (): Promise<void> => {
        try {
          await deps.queue().upsertJobScheduler(
            RECONCILE_SCHEDULER_ID,
            { every: deps.intervalSeconds * 1000 },
            {
              name: "reconcile",
              opts: { attempts: 1, removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } },
            },
          );
        } catch (err) {
          // Redis down at start-up: the rest of the app runs; the schedule is set once Redis is back.
          deps.logger.warn({ err }, "reconciler: could not set its schedule; retrying in 30 s");
          if (!stopped) retry = setTimeout(() => void schedule(), RETRY_SETUP_MS).unref();
        }
      };
      await schedule();
      return async () => {
        stopped = true;
        if (retry) clearTimeout(retry);
      };
    },
  };
}
