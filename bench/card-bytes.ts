// Redis bytes kept per posted card (issue 38: at most 600), by key family, before and after.
//
//   npx tsx bench/card-bytes.ts [-- --cards 5000 --channels 10 --days 1 --redis URL]
//
// Each posted card leaves behind: its ref with the card it shows (kept 180 days), the
// de-duplication marker of the delivery that brought it (7 days) and its thread's index of
// channels (as long as the refs). The posting mark is cleared with the ref, Home's open list and
// the queues' finished jobs are capped, the rest (triage, followers, reminders) is per press.
// "before" writes the layout before issue 38 with the commands its stores ran; "after" goes
// through the stores of this checkout (MessageRefStore.setIfNewer and noteChannel,
// recordReceipts), with realistic cards: the emulator's threads (titles, summaries, keywords,
// dates) as the digest path builds them. Both run in a throwaway redis-server with its
// defaults (listpack limits 128 entries / 64 bytes) unless --redis is given (then under a
// throwaway prefix of that Redis; used_memory is then only as clean as that Redis is quiet).
// Figures: the growth of used_memory per card, and the sum of MEMORY USAGE per family per card.
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { EmulatorStore, threadEvent } from "../dev/emulator/index.js";
import { seedStore } from "../dev/emulator/seed.js";
import { threadView } from "../dev/emulator/views.js";
import { dropPrefix, redisServerInstalled, startThrowawayRedis } from "../dev/local-redis.js";
import { buildThreadDigest } from "../src/domain/thread-digest.js";
import { classifyDelivery } from "../src/intake/classify-delivery.js";
import { newReceiptId } from "../src/intake/entry.js";
import { receiptBooks } from "../src/intake/receipt-books.js";
import { markerOf, recordReceipts, type Receipt } from "../src/intake/receipts.js";
import { threadEventSchema, threadSchema } from "../src/insight/schemas.js";
import { silentLogger } from "../src/log.js";
import { stateKeys } from "../src/store/keys.js";
import { digestVersion, MessageRefStore, type StoredCard } from "../src/store/message-refs.js";

const { values: args } = parseArgs({
  options: {
    cards: { type: "string", default: "5000" },
    channels: { type: "string", default: "10" },
    days: { type: "string", default: "1" },
    redis: { type: "string" },
  },
});
const N = Number(args.cards);
const CHANNELS = Number(args.channels);
const DAYS = Number(args.days);
const DAY = 86_400_000;

interface Posted {
  channelId: string;
  body: string;
  card: StoredCard;
  enrichedAtMs: number;
  ts: string;
  at: number;
}

/** N realistic cards: the emulator's seeded threads, and more from its templates. */
function realisticCards(now: Date): Posted[] {
  const store = new EmulatorStore({ seed: 7, now: () => now });
  seedStore(store, 7, now);
  const groups = store.communities().flatMap((c) => store.groups(c._id));
  const perGroup = Math.ceil(N / groups.length);
  const out: Posted[] = [];
  for (const g of groups) {
    const have = store.threads(g._id).length;
    if (have < perGroup) store.addThreads(g._id, perGroup - have);
    for (const t of store.threads(g._id).slice(0, perGroup)) {
      const i = out.length;
      // Posted over the last `--days` days, one delivery each, in one of the channels.
      const at = now.getTime() - Math.floor((i / N) * DAYS * DAY);
      const envelope = threadEvent("created", g, t, new Date(at - 2_000));
      const body = JSON.stringify(envelope);
      const digest = buildThreadDigest(threadEventSchema.parse(envelope), threadSchema.parse(threadView(t)));
      const seconds = Math.floor(at / 1000);
      out.push({
        channelId: `C0${(i % CHANNELS).toString(36).toUpperCase().padStart(8, "0")}`,
        body,
        card: { digest, change: [], noLongerMatches: false },
        enrichedAtMs: Date.parse(digest.enrichedAt),
        ts: `${seconds}.${String(100 + (i % 900)).padStart(6, "0")}`,
        at,
      });
    }
  }
  return out.slice(0, N);
}

const FAMILIES: [string, RegExp][] = [
  ["refs", /:state:(ref|refs):/],
  ["dedupe", /:state:(\{?health\}?:seen|dedupe):/],
  ["thread index", /:state:(thread-cards|card-index):/],
];

async function measure(redis: Redis, prefix: string, write: () => Promise<void>) {
  const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info("memory"))?.[1] ?? 0);
  const before = await used();
  await write();
  const after = await used();
  const byFamily = new Map<string, { keys: number; bytes: number }>(
    FAMILIES.map(([f]) => [f, { keys: 0, bytes: 0 }]),
  );
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      const family = FAMILIES.find(([, re]) => re.test(key))?.[0] ?? "other";
      const f = byFamily.get(family) ?? { keys: 0, bytes: 0 };
      f.keys++;
      f.bytes += Number(await redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
      byFamily.set(family, f);
    }
  } while (cursor !== "0");
  return { usedPerCard: (after - before) / N, byFamily };
}

/** The layout before issue 38, with the commands its stores ran. */
async function writeBefore(redis: Redis, prefix: string, cards: Posted[]): Promise<void> {
  const k = stateKeys(prefix);
  for (const [i, c] of cards.entries()) {
    const { deliveryId } = classifyDelivery(c.body);
    const threadId = c.card.digest.threadId;
    const ref = k.messageRef(c.channelId, threadId);
    const pipe = redis.pipeline();
    pipe.set(
      k.dedupe(deliveryId),
      markerOf({ receivedAt: new Date(c.at - 1_000).toISOString(), receipt: `r${i}` }),
      "EX",
      7 * 86_400,
      "NX",
    );
    pipe.hset(
      ref,
      "version",
      String(digestVersion(c.enrichedAtMs, true)),
      "ts",
      c.ts,
      "enrichedAtMs",
      String(c.enrichedAtMs),
      "hasSentiment",
      "1",
      "groupId",
      c.card.digest.groupId,
      "card",
      JSON.stringify(c.card),
    );
    pipe.pexpire(ref, 180 * DAY);
    pipe.zadd(k.threadCards(threadId), "NX", c.at, c.channelId);
    pipe.pexpire(k.threadCards(threadId), 180 * DAY);
    await pipe.exec();
  }
}

/** This checkout's stores. */
async function writeAfter(redis: Redis, prefix: string, cards: Posted[]): Promise<void> {
  const keys = stateKeys(prefix);
  const book = receiptBooks(redis, prefix)(undefined);
  for (const c of cards) {
    const now = () => c.at;
    const refs = new MessageRefStore(redis, keys, { legacy: { mayRemain: false }, now });
    const receipt: Receipt = {
      c: classifyDelivery(c.body),
      receivedAt: new Date(c.at - 1_000).toISOString(),
      receipt: newReceiptId(),
      body: c.body,
    };
    await recordReceipts(redis, book, [receipt], { logger: silentLogger, now });
    const threadId = c.card.digest.threadId;
    await refs.setIfNewer(c.channelId, threadId, {
      ts: c.ts,
      enrichedAtMs: c.enrichedAtMs,
      hasSentiment: true,
      groupId: c.card.digest.groupId,
      card: c.card,
    });
    await refs.noteChannel(c.channelId, threadId, new Date(c.at));
  }
}

async function main(): Promise<void> {
  const own = args.redis ? undefined : redisServerInstalled() ? await startThrowawayRedis() : undefined;
  const url = args.redis ?? own?.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = new Redis(url);
  const cards = realisticCards(new Date());
  const rows: string[] = [];
  const results: Record<string, Awaited<ReturnType<typeof measure>>> = {};
  try {
    for (const [name, write] of [
      ["before", writeBefore],
      ["after", writeAfter],
    ] as const) {
      const prefix = `card-bytes-${name}-${process.pid}`;
      if (own) await redis.flushall();
      results[name] = await measure(redis, prefix, () => write(redis, prefix, cards));
      if (!own) await dropPrefix(url, prefix);
    }
    const fmt = (n: number) => n.toFixed(0).padStart(7);
    rows.push(
      `${N} cards over ${DAYS} day(s) in ${CHANNELS} channels (${own ? "a throwaway redis-server, its defaults" : url})`,
    );
    rows.push(
      `${"bytes per card".padEnd(30)}${"before".padStart(7)}${"after".padStart(7)}   keys before -> after`,
    );
    for (const [family] of [...FAMILIES, ["other"]] as const) {
      const b = results.before?.byFamily.get(family) ?? { keys: 0, bytes: 0 };
      const a = results.after?.byFamily.get(family) ?? { keys: 0, bytes: 0 };
      if (b.keys + a.keys === 0) continue;
      rows.push(
        `${`MEMORY USAGE, ${family}`.padEnd(30)}${fmt(b.bytes / N)}${fmt(a.bytes / N)}   ${b.keys} -> ${a.keys}`,
      );
    }
    const sum = (r: (typeof results)[string] | undefined) =>
      [...(r?.byFamily.values() ?? [])].reduce((s, f) => s + f.bytes, 0) / N;
    rows.push(`${"MEMORY USAGE, all".padEnd(30)}${fmt(sum(results.before))}${fmt(sum(results.after))}`);
    rows.push(
      `${"used_memory growth".padEnd(30)}${fmt(results.before?.usedPerCard ?? 0)}${fmt(results.after?.usedPerCard ?? 0)}`,
    );
    console.log(rows.join("\n"));
  } finally {
    redis.disconnect();
    await own?.close();
  }
}

await main();
