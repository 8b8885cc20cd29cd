import type { Queue } from "bullmq";
import type { Logger } from "../log.js";

/** The deployment queue a repeating job is scheduled on. */
export type ScheduledQueue = Pick<Queue, "upsertJobScheduler">;

/** How long to wait before setting a schedule again when Redis did not take it. */
const RETRY_SETUP_MS = 30_000;

/**
 * Sets a BullMQ job scheduler (`every` ms, jobs named `name`, one attempt, the last 50 kept).
 * Redis down at start-up must not stop the rest of the app: the schedule is then set again
 * every 30 s until Redis takes it. Resolves to the function that stops those retries.
 */
export async function keepScheduled(o: {
  /** A getter: see `healingQueue`. */
  queue: () => ScheduledQueue;
  schedulerId: string;
  name: string;
  everyMs: number;
  /** Who is scheduling, for the log line ("alerts", "reconciler"). */
  what: string;
  logger: Logger;
}): Promise<() => Promise<void>> {
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const schedule = async (): Promise<void> => {
    try {
      await o.queue().upsertJobScheduler(
        o.schedulerId,
        { every: o.everyMs },
        {
          name: o.name,
          opts: { attempts: 1, removeOnComplete: { count: 50 }, removeOnFail: { count: 50 } },
        },
      );
    } catch (err) {
      o.logger.warn({ err }, `${o.what}: could not set the schedule; retrying in 30 s`);
      if (!stopped) retry = setTimeout(() => void schedule(), RETRY_SETUP_MS).unref();
    }
  };
  await schedule();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
  };
}
