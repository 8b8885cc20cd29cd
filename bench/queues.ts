// What the benches read of an app's queues in Redis: how many deliveries it still has to
// process, and waiting until it has processed them all. The bench's own commands are counted,
// so that a row can leave them out of the app's Redis commands.
import type { Redis } from "ioredis";
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
