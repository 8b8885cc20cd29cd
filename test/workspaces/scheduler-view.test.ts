import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import { silentLogger } from "../../src/log.js";
import { createRedis, type RedisClient } from "../../src/store/redis.js";
import { workspaceQueues } from "../../src/workspaces/workspace-queues.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/** Each hour at `minute` (UTC): the next runs come in the minutes' order. */
const hourly = (minute: number) => ({ pattern: `${minute} * * * *`, tz: "UTC" });
const template = (channelId: string) => ({
  name: "weekly",
  data: { channelId, trigger: "schedule" as const, timeZone: "UTC" },
});

describe("a workspace's view of a shared queue's job schedulers (real Redis and BullMQ)", () => {
  let redis: RedisClient;
  let prefix: string;
  let queues: Queues;
  const viewOf = (workspaceId: string) => workspaceQueues(queues, workspaceId, { ownIds: true }).weekly;

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(() => {
    prefix = uniquePrefix("schedview");
    queues = createQueues(redis, prefix, silentLogger);
  });
  afterEach(async () => {
    await queues.close();
    await dropPrefix(prefix);
  });

  it("lists its own only, under the ids it made them with, in BullMQ's order, paged among its own", async () => {
    const a = viewOf("T0A");
    const b = viewOf("T0B");
    // Interleaved in time, so another workspace's sit between A's.
    await a.upsertJobScheduler("C0A1", hourly(50), template("C0A1"));
    await b.upsertJobScheduler("C0B1", hourly(40), template("C0B1"));
    await a.upsertJobScheduler("C0A2", hourly(30), template("C0A2"));
    await b.upsertJobScheduler("C0B2", hourly(20), template("C0B2"));
    await a.upsertJobScheduler("C0A3", hourly(10), template("C0A3"));

    const all = await queues.weekly.getJobSchedulers(0, -1, true);
    const order = all.map((j) => j.key);
    const mine = order.filter((k) => k.includes("T0A")).map((k) => k.slice(k.lastIndexOf("|") + 1));
    expect([...mine].sort()).toEqual(["C0A1", "C0A2", "C0A3"]);
    expect((await a.getJobSchedulers(0, -1, true)).map((j) => j.key)).toEqual(mine);
    expect((await a.getJobSchedulers(0, -1)).map((j) => j.key)).toEqual([...mine].reverse());
    // The first two of A's own, whatever B's sit between them.
    expect((await a.getJobSchedulers(0, 1, true)).map((j) => j.key)).toEqual(mine.slice(0, 2));
    expect((await a.getJobSchedulers(0, -1)).every((j) => j.pattern?.endsWith("* * * *"))).toBe(true);
    expect((await b.getJobSchedulers(0, -1)).map((j) => j.key).sort()).toEqual(["C0B1", "C0B2"]);
    expect(await viewOf("T0C").getJobSchedulers(0, -1)).toEqual([]);
  });
});
