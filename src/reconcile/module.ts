import { Queue, Worker } from "bullmq";
import { QUEUE_NAMES } from "../jobs/queues.js";
import { healingQueue } from "../jobs/healing-queue.js";
import type { RelayModule } from "../modules.js";
import type { AppServices } from "../runtime.js";
import { createRedis } from "../store/redis.js";
import { Reconciler, type ReconcilerOptions } from "./reconciler.js";

export const RECONCILE_SCHEDULER_ID = "reconcile";
const RETRY_SETUP_MS = 30_000;

/**
 * Runs the reconciler every RECONCILE_INTERVAL seconds in the scheduler role.
 *
 * Why a BullMQ job scheduler rather than a timer: the schedule lives in Redis, so several
 * scheduler processes upserting it make one job per interval between them (not one each),
 * a restart does not reset the clock, and the runs show up with the other queues in the
 * admin board. The worker that runs those jobs lives here too (concurrency 1), so `ROLE=worker`
 * processes never read the API for it. A run that outlasts the interval could still meet the
 * next job in another process: the Reconciler's own Redis lock makes that one skip.
 */
export async function startReconcileScheduler(
  services: AppServices,
  opts: ReconcilerOptions = {},
): Promise<() => Promise<void>> {
  const { config, logger } = services;
  const reconciler = new Reconciler(services, opts);
  const queue = healingQueue(
    () => new Queue(QUEUE_NAMES.reconcile, { connection: services.redis, prefix: config.redis.prefix }),
  );
  const everyMs = config.reconcileIntervalSeconds * 1000;

  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const schedule = async (): Promise<void> => {
    try {
      await queue().upsertJobScheduler(
        RECONCILE_SCHEDULER_ID,
        { every: everyMs },
        {
          name: "reconcile",
          opts: { attempts: 1, removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } },
        },
      );
    } catch (err) {
      // Redis down at start-up: the rest of the app runs; the schedule is set once Redis is back.
      logger.warn({ err: String(err) }, "reconciler: could not set its schedule; retrying in 30 s");
      if (!stopped) retry = setTimeout(() => void schedule(), RETRY_SETUP_MS).unref();
    }
  };
  await schedule();

  const connection = createRedis(config.redis.url, "blocking", logger);
  const worker = new Worker(
    QUEUE_NAMES.reconcile,
    async () => {
      const r = await reconciler.run();
      return { ran: r.ran, sent: r.sent, deferred: r.deferred, incident: r.incident ?? null };
    },
    { connection, prefix: config.redis.prefix, concurrency: 1 },
  );
  worker.on("failed", (job, err) =>
    logger.warn(
      { jobId: job?.id, err: err.message },
      "reconciler: run failed; the next interval tries again",
    ),
  );
  worker.on("error", (err) =>
    logger.warn({ queue: QUEUE_NAMES.reconcile, err: err.message }, "worker error"),
  );

  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await worker.close();
    await queue.close().catch(() => undefined);
    connection.disconnect();
  };
}

/** Rule 9: reads the newest threads of every followed group and sends what no webhook delivered. */
export const reconcileModule: RelayModule = {
  name: "reconcile",
  startScheduler: (services) => startReconcileScheduler(services),
};
