import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createQueues } from "../../src/jobs/queue-registry.js";
import { createLogger } from "../../src/log.js";
import { createRedis } from "../../src/store/redis.js";
import { startThrowawayRedis, type ThrowawayRedis } from "../../dev/local-redis.js";

// Its own redis-server: CLIENT PAUSE stalls every client of the server it is sent to.
let redis: ThrowawayRedis;
const logLines: string[] = [];
const logger = createLogger({ level: "warn", destination: { write: (l: string) => logLines.push(l) } });

beforeAll(async () => {
  redis = await startThrowawayRedis();
});
afterAll(async () => {
  await redis?.close();
});

/** A fail-fast connection (the receiver's kind) with a short command timeout, once ready. */
async function failFastConnection(): Promise<Redis> {
  const c = createRedis(redis.url, "command", logger, { commandTimeout: 200 });
  if (c.status !== "ready") await new Promise((r) => c.once("ready", r));
  return c;
}

/** Stalls the server for `ms`, so a queue's set-up (its INFO) times out. */
async function stallServer(ms: number): Promise<void> {
  const admin = new Redis(redis.url);
  await admin.client("PAUSE", ms, "ALL");
  admin.disconnect();
}

describe("queues whose set-up failed", () => {
  it("a plain BullMQ Queue stays broken after Redis is back (the failure being healed)", async () => {
    const c = await failFastConnection();
    await stallServer(600);
    const q = new Queue("plain", { connection: c, prefix: "heal-plain" });
    q.on("error", () => undefined);
    await expect(q.waitUntilReady()).rejects.toThrow(/timed out/i);
    await new Promise((r) => setTimeout(r, 700));
    await expect(q.add("x", {})).rejects.toThrow(/timed out/i);
    await q.close().catch(() => undefined);
    c.disconnect();
  });

  it("createQueues replaces such a queue on its next use, which then succeeds", async () => {
    const c = await failFastConnection();
    await stallServer(600);
    const queues = createQueues(c, "heal-made", logger);
    // One Redis, one shard: the deliveries queue is that shard.
    const shard = () => queues.deliveries.shards()[0];
    const first = shard();
    if (!first) throw new Error("no shard");
    await expect(first.waitUntilReady()).rejects.toThrow(/timed out/i);
    await new Promise((r) => setTimeout(r, 700));

    const healed = shard();
    if (!healed) throw new Error("no shard");
    expect(healed).not.toBe(first);
    // A healthy queue is kept, not rebuilt on every use.
    expect(shard()).toBe(healed);
    const job = await healed.add("chatthread-crud", {
      deliveryId: "d1",
      receivedAt: new Date(0).toISOString(),
      event: { webhookType: "chatmessage-crud", actionType: "created", payload: {} },
    } as never);
    expect(job.id).toBeDefined();
    expect(await healed.getJobCounts("waiting")).toEqual({ waiting: 1 });
    expect(logLines.join("")).toContain("queue set-up had failed; made it again");
    expect(logLines.join("")).toContain('"queue":"deliveries"');
    await queues.close();
    c.disconnect();
  });
});
