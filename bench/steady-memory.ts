// bench:steady's bytes kept per card: one app on a fresh Redis posts `cards` cards of new threads
// (sent as fast as they are acknowledged, 20 in flight); once the queues have drained and the
// completed jobs are removed, Redis's `used_memory` growth per card, and the `MEMORY USAGE` of
// the app's own keys (every key that is not a BullMQ queue's) per card, by key family.
import type { Redis } from "ioredis";
import { settle } from "./queues.js";
import { sendAtOnce } from "./senders.js";
import { nextChannel, startFollowing, type AppTarget, type SteadyContext } from "./steady-context.js";
import { byFamily, per } from "./steady-figures.js";
import { SteadyTraffic } from "./steady-traffic.js";

export interface MemoryFigures {
  target: string;
  cards: number;
  expected: number;
  usedMemoryPerCard: number;
  appKeysPerCard: number;
  queueKeysPerCard: number;
  /** The app's own keys' growth by family, biggest first: keys and bytes a card. */
  families: { family: string; keys: number; bytes: number }[];
}

/** The BullMQ queues' key bases (`<prefix>:<queue>`), found by their `meta` hashes. */
async function queueBases(redis: Redis, prefix: string): Promise<string[]> {
  return (await redis.keys(`${prefix}:*:meta`)).map((k) => k.slice(0, -":meta".length));
}

/** Removes every completed job of every queue (its hash, its logs, its place in `completed`). */
async function removeCompleted(redis: Redis, prefix: string): Promise<void> {
  for (const base of await queueBases(redis, prefix)) {
    const ids = await redis.zrange(`${base}:completed`, "0", "-1");
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500).flatMap((id) => [`${base}:${id}`, `${base}:${id}:logs`]);
      if (chunk.length > 0) await redis.del(...chunk);
    }
    await redis.del(`${base}:completed`);
  }
}

/** Every key of the app with its `MEMORY USAGE` (exact: SAMPLES 0), split into queue keys and the rest. */
async function keyBytes(
  redis: Redis,
  prefix: string,
): Promise<{ app: { key: string; bytes: number }[]; queues: number }> {
  const bases = await queueBases(redis, prefix);
  const isQueueKey = (k: string) => bases.some((b) => k.startsWith(`${b}:`));
  const app: { key: string; bytes: number }[] = [];
  let queues = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    const pipe = redis.pipeline();
    for (const k of keys) pipe.call("MEMORY", "USAGE", k, "SAMPLES", "0");
    const sizes = (await pipe.exec()) ?? [];
    keys.forEach((k, i) => {
      const bytes = Number(sizes[i]?.[1] ?? 0);
      if (isQueueKey(k)) queues += bytes;
      else app.push({ key: k, bytes });
    });
  } while (cursor !== "0");
  return { app, queues };
}

const usedMemory = async (redis: Redis): Promise<number> =>
  Number(/^used_memory:(\d+)/m.exec(await redis.info("memory"))?.[1] ?? NaN);

export async function memoryRow(ctx: SteadyContext, t: AppTarget, cards: number): Promise<MemoryFigures> {
  const channel = nextChannel();
  const app = await startFollowing(ctx, t, channel);
  const redis = app.redis.client;
  try {
    await new Promise((r) => setTimeout(r, 2_000));
    await removeCompleted(redis, app.prefix);
    const used0 = await usedMemory(redis);
    const keys0 = await keyBytes(redis, app.prefix);
    ctx.log(`${t.name}: bytes kept: ${cards} new threads, 20 in flight`);
    const traffic = new SteadyTraffic(ctx.emulator.store, app.group, { created: 1, updated: 0, messages: 0 });
    await sendAtOnce({ url: app.url, n: cards, inFlight: 20, next: () => traffic.next() });
    const posted = () => ctx.slack.messages(channel).length;
    await settle(redis, app.prefix, () => posted() >= cards);
    await removeCompleted(redis, app.prefix);
    const used1 = await usedMemory(redis);
    const keys1 = await keyBytes(redis, app.prefix);
    const done = posted();
    const sum = (ks: { bytes: number }[]) => ks.reduce((a, k) => a + k.bytes, 0);
    const before = new Map(byFamily(keys0.app, app.prefix).map((f) => [f.family, f]));
    const families = byFamily(keys1.app, app.prefix)
      .map((f) => ({
        family: f.family,
        keys: per(f.keys - (before.get(f.family)?.keys ?? 0), done),
        bytes: per(f.bytes - (before.get(f.family)?.bytes ?? 0), done),
      }))
      .sort((a, b) => b.bytes - a.bytes);
    return {
      target: t.name,
      cards: done,
      expected: cards,
      usedMemoryPerCard: per(used1 - used0, done),
      appKeysPerCard: per(sum(keys1.app) - sum(keys0.app), done),
      queueKeysPerCard: per(keys1.queues - keys0.queues, done),
      families,
    };
  } finally {
    await app.stop();
  }
}
