import type { Queue } from "bullmq";

/** The queue as it is now (call it at each use, never keep what it returns), and its close. */
export type HealingQueue<Q extends Queue> = (() => Q) & { close(): Promise<void> };

/**
 * A BullMQ Queue whose connection set-up failed stays broken: its set-up (wait for ready,
 * then INFO) runs once, and every later call rejects with that first error, even after Redis
 * is back. It fails that way when Redis drops or stalls during the INFO, which on a fail-fast
 * connection (the webhook receiver's) is one blip at start-up. This holds a queue and, once
 * its set-up has failed, builds a fresh one on the next use.
 */
export function healingQueue<Q extends Queue>(
  create: () => Q,
  onReplaced: (err: unknown) => void = () => undefined,
): HealingQueue<Q> {
  let failure: { err: unknown } | undefined;
  const watch = (q: Q): Q => {
    q.on("error", () => undefined); // the connection logs its own errors
    q.waitUntilReady().catch((err: unknown) => {
      if (current === q) failure = { err };
    });
    return q;
  };
  let current: Q = watch(create());
  const get = () => {
    if (failure) {
      const { err } = failure;
      failure = undefined;
      // A shared connection is left open by close(); only the broken wrapper goes.
      // Its set-up failed already: closing it can only fail the same way, and it is replaced anyway.
      void current.close().catch(() => undefined);
      current = watch(create());
      onReplaced(err);
    }
    return current;
  };
  // Closing never builds a new queue, whatever state the current one is in.
  return Object.assign(get, { close: () => current.close() });
}
