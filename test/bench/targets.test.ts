import type { ChildProcess } from "node:child_process";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { request } from "undici";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { compiledTarget, spawnReady, stopChild } from "../../bench/processes.js";
import { freePort } from "../helpers/global-redis.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { useSlackStandIn } from "../helpers/slack.js";

// The benches' floor and durable-ack ceiling are what issue 15's figures are read against: they
// must do the work their rows name, compiled as `--app dist` runs them.
const slack = useSlackStandIn();
const redis = new Redis(testRedisUrl());
const children: ChildProcess[] = [];
const prefixes: string[] = [];

afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => stopChild(c)));
  await Promise.all(prefixes.splice(0).map((p) => dropPrefix(p)));
});
afterAll(() => redis.disconnect());

async function started(target: string, args: (port: number) => string[]): Promise<number> {
  const port = await freePort();
  const child = await spawnReady([compiledTarget(target), ...args(port)], {
    env: { ...process.env, REDIS_URL: testRedisUrl() },
    tsx: false,
    timeoutMs: 20_000,
  });
  children.push(child);
  return port;
}

async function deliver(port: number, threadId: string): Promise<number> {
  const res = await request(`http://127.0.0.1:${port}/webhooks/insight/secret`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      webhookType: "chatthread-crud",
      payload: { threadId, title: `Thread ${threadId}`, summary: "Members compare upgrade notes." },
    }),
  });
  await res.body.dump();
  return res.statusCode;
}

describe("bench:pipeline's floor", () => {
  it.each([
    ["one BullMQ job", "1"],
    ["two BullMQ jobs, as the app", "2"],
  ])("with %s: acknowledges, posts one card to Slack and records its ts", async (_label, jobs) => {
    const prefix = uniquePrefix("floor");
    prefixes.push(prefix);
    const port = await started("bench/targets/floor.ts", (p) => [
      String(p),
      testRedisUrl(),
      slack.current.url,
      prefix,
      jobs,
      "C0FLOOR",
    ]);

    expect(await deliver(port, "th-1")).toBe(200);
    const [card] = await slack.current.waitFor(() => {
      const m = slack.current.messages("C0FLOOR");
      return m.length > 0 && m;
    });
    expect(card?.text).toBe("Thread th-1");
    expect(JSON.stringify(card?.blocks)).toContain("Members compare upgrade notes.");
    // The ts is recorded right after Slack's answer: look until it is there.
    let ref: string | null = null;
    for (let i = 0; i < 50 && ref === null; i++) {
      ref = await redis.get(`${prefix}:ref:C0FLOOR:th-1`);
      if (ref === null) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ref).toBe(card?.ts);
    expect(slack.current.posts()).toHaveLength(1);
  });
});

describe("bench:webhooks's express + BullMQ add ceiling", () => {
  it("answers 200 and holds each delivery as a BullMQ job (no worker takes it)", async () => {
    const prefix = uniquePrefix("ceiling");
    prefixes.push(prefix);
    const port = await started("bench/targets/ceiling.ts", (p) => ["express-bullmq", String(p), prefix]);

    expect(await deliver(port, "th-2")).toBe(200);
    expect(await deliver(port, "th-3")).toBe(200);
    const queue = new Queue("ceiling-deliveries", { connection: redis, prefix });
    expect((await queue.getJobCounts("wait")).wait).toBe(2);
    const [job] = await queue.getJobs(["wait"], 0, 0);
    expect(String((job?.data as { body?: unknown }).body)).toContain("th-");
    await queue.close();
  });
});
