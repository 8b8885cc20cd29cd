// What the benches read of an app's queues in Redis: how many deliveries it still has to
// process, and waiting until it has processed them all. The bench's own commands are counted,
// so that a row can leave them out of the app's Redis commands.
import type { Redis } from "ioredis";
import { isWindowedJobId } from "../src/jobs/route-message-event.js";
import { stateKeys } from "../src/store/keys.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Deliveries the app still has to process: the wait and active lists of every deliveries
 * queue (found by their `meta` key, whatever the sharding). Costs 2 Redis commands a queue.
 */
export async function deliveriesLeft(
  redis: Redis,
  prefix: string,
  queues = "*deliveries*",
): Promise<{ left: number; commands: number }> {
  // The app's intake first: read upstream before downstream, a delivery on its way is seen.
  const keys = stateKeys(prefix);
  const intake = queues === "*deliveries*" ? [keys.intake, keys.intakeMoving] : [];
  let left = 0;
  for (const k of intake) left += await redis.llen(k);
  const metas = await redis.keys(`${prefix}:${queues}:meta`);
  const bases = metas.map((k) => k.slice(0, -":meta".length));
  for (const b of bases) left += (await redis.llen(`${b}:wait`)) + (await redis.llen(`${b}:active`));
  return { left, commands: 1 + intake.length + 2 * bases.length };
}

/** Waits (at most 2 minutes) until those queues hold no waiting or active job; the commands it sent. */
export async function drained(redis: Redis, prefix: string, queues?: string): Promise<number> {
  let commands = 0;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const d = await deliveriesLeft(redis, prefix, queues);
    commands += d.commands;
    if (d.left === 0 || Date.now() > deadline) return commands;
    await sleep(100);
  }
}

/** Delayed jobs due within this long count as work still to do (a 429's Retry-After, a retry). */
const DUE_SOON_MS = 10_000;

/**
 * What an app still has to do: deliveries in its intake and jobs waiting, active or
 * prioritized in any of its BullMQ queues (found by their `meta` key), and delayed jobs due
 * within 10 s that are not a job scheduler's next run (`repeat:<id>:<ms>`, always there; nor a
 * look again at a lagging listing minutes later) nor a card's counts edit or reply batch waiting
 * for its window (`isWindowedJobId`). The commands it sent.
 */
export async function workLeft(redis: Redis, prefix: string): Promise<{ left: number; commands: number }> {
  const keys = stateKeys(prefix);
  let left = (await redis.llen(keys.intake)) + (await redis.llen(keys.intakeMoving));
  const metas = await redis.keys(`${prefix}:*:meta`);
  for (const meta of metas) {
    const b = meta.slice(0, -":meta".length);
    left += (await redis.llen(`${b}:wait`)) + (await redis.llen(`${b}:active`));
    // BullMQ scores a delayed job by its due time × 0x1000 (the low 12 bits order jobs of one ms).
    const soon = await redis.zrangebyscore(`${b}:delayed`, 0, (Date.now() + DUE_SOON_MS) * 0x1000);
    left +=
      soon.filter((id) => !id.startsWith("repeat:") && !isWindowedJobId(id)).length +
      (await redis.zcard(`${b}:prioritized`));
  }
  return { left, commands: 3 + 4 * metas.length };
}

/**
 * Waits until `done()` holds and the app has nothing left to do (at most `timeoutMs`); whether
 * it got there, and the commands it sent.
 */
export async function settle(
  redis: Redis,
  prefix: string,
  done: () => boolean,
  timeoutMs = 180_000,
): Promise<{ settled: boolean; commands: number }> {
  let commands = 0;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (done()) {
      const w = await workLeft(redis, prefix);
      commands += w.commands;
      if (w.left === 0) return { settled: true, commands };
    }
    if (performance.now() > deadline) return { settled: false, commands };
    await sleep(50);
  }
}
