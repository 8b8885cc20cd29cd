import { Queue } from "bullmq";
import type { AppServices } from "../runtime.js";
import { healingQueue, type HealingQueue } from "./healing-queue.js";
import { QUEUE_NAMES } from "./queues.js";

const readers = new WeakMap<AppServices, HealingQueue<Queue>[]>();

/**
 * Every queue of the app, for whatever reads them all (status, /metrics, the admin page): the
 * producers the services hold, plus a handle on each named queue no producer there holds (a
 * feature's own queue), built once per services, so every process lists them all whichever
 * modules it runs.
 */
export function everyQueue(services: AppServices): Queue[] {
  const held = [services.queues.deliveries, services.queues.slack, services.queues.refresh];
  let extra = readers.get(services);
  if (!extra) {
    const names = new Set(held.map((q) => q.name));
    extra = Object.values(QUEUE_NAMES)
      .filter((name) => !names.has(name))
      .map((name) =>
        healingQueue(
          () => new Queue(name, { connection: services.redis, prefix: services.config.redis.prefix }),
        ),
      );
    readers.set(services, extra);
  }
  return [...held, ...extra.map((q) => q())];
}

/** Closes the handles everyQueue built (the connection itself is the services' to close). */
export async function closeEveryQueue(services: AppServices): Promise<void> {
  await Promise.all((readers.get(services) ?? []).map((q) => q.close().catch(() => undefined)));
  readers.delete(services);
}
