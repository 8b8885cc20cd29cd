import { QueueEvents, type Job } from "bullmq";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { runPeriod } from "../../src/weekly/run-weekly.js";
import type { WeeklyJob } from "../../src/weekly/schedules.js";
import { messageText } from "../helpers/app-harness.js";
import { startRig, type WeeklyRig } from "./rig.js";

const SUPPORT = SEED.groups.support;
const RIDES = SEED.groups.rides;

describe("runPeriod: which summary a job is", () => {
  const job = (data: Partial<WeeklyJob>, prevMillis?: number) =>
    ({
      id: "job-1",
      data: { channelId: "C1", trigger: "schedule", timeZone: "UTC", ...data },
      opts: prevMillis === undefined ? {} : { prevMillis },
      timestamp: Date.parse("2026-03-01T00:00:00.000Z"),
    }) as unknown as Pick<Job<WeeklyJob>, "id" | "data" | "opts" | "timestamp">;

  it("a scheduled run is the day of its tick in the schedule's zone", () => {
    const tick = Date.parse("2026-03-08T23:30:00.000Z");
    expect(runPeriod(job({ timeZone: "UTC" }, tick))).toBe("2026-03-08");
    expect(runPeriod(job({ timeZone: "Europe/Paris" }, tick))).toBe("2026-03-09");
    expect(runPeriod(job({ timeZone: "UTC" }))).toBe("2026-03-01"); // no tick: its creation
  });

  it("a `weekly now` is its own", () => {
    expect(runPeriod(job({ trigger: "now" }))).toBe("now-job-1");
  });
});

describe("runWeeklySummary through the weekly queue (real Redis, emulator, stand-in Slack)", () => {
  let rig: WeeklyRig;
  let events: QueueEvents;
  beforeEach(async () => {
    rig = await startRig();
    events = new QueueEvents(rig.queue.name, { connection: rig.redis.duplicate(), prefix: rig.prefix });
    await events.waitUntilReady();
  });
  afterEach(async () => {
    await events?.close();
    await rig?.close();
  });

  const now = (channelId: string) =>
    rig.queue.add(
      "weekly-now",
      { channelId, trigger: "now", timeZone: "UTC" },
      { jobId: `now-${channelId}` },
    );
  const finished = (job: Job<WeeklyJob>) => job.waitUntilFinished(events, 20_000);
  const posts = (channel: string) => rig.slack.messages(channel);

  it("one message for every group the channel follows, each chart a reply in its thread", async () => {
    await rig.subscribe("C1", SUPPORT, "Lumen DB Support");
    await rig.subscribe("C1", RIDES, "Saturday Rides");
    rig.startWorker();
    const result = await finished(await now("C1"));
    expect(result).toMatchObject({ status: "posted", messages: 1, charts: 2, groups: 2 });
    const top = posts("C1").filter((m) => m.thread_ts === undefined);
    expect(top).toHaveLength(1);
    const text = messageText(top[0] ?? { text: "" });
    expect(text).toContain("*Lumen DB Support*");
    expect(text).toContain("*Saturday Rides*");
    const ts = top[0]?.ts;
    const files = rig.slack.files.filter((f) => f.channel === "C1" && f.completed);
    expect(files).toHaveLength(2);
    expect(files.every((f) => f.threadTs !== undefined && f.threadTs === ts)).toBe(true);
  });

  it("a retry after the message went out posts only the charts, under that message", async () => {
    await rig.subscribe("C1", SUPPORT, "Lumen DB Support");
    // As if an earlier attempt of this job posted the message and then the worker died.
    const job = await rig.queue.add(
      "weekly-now",
      { channelId: "C1", trigger: "now", timeZone: "UTC" },
      { jobId: "now-retried", delay: 60_000 },
    );
    await rig.redis.hset(
      rig.keys.weeklyRun("C1", "now-now-retried"),
      "owner",
      "now-retried",
      "leaseUntil",
      "0",
      "part:summary",
      "1700000000.000100",
    );
    await job.promote();
    rig.startWorker();
    expect(await finished(job)).toMatchObject({ status: "posted", messages: 0, charts: 1 });
    expect(posts("C1")).toHaveLength(0);
    const [file] = rig.slack.files.filter((f) => f.channel === "C1" && f.completed);
    expect(file?.threadTs).toBe("1700000000.000100");
  });

  it("covers subscriptions in summary mode like any other", async () => {
    await rig.subscriptions.put({
      channelId: "C8",
      groupId: SUPPORT,
      groupName: "Lumen DB Support",
      communityId: undefined,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
      delivery: { mode: "summary" },
    });
    await rig.subscriptions.put({
      channelId: "C8",
      groupId: RIDES,
      groupName: "Saturday Rides",
      communityId: undefined,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
      delivery: { mode: "digest", every: "4h" },
    });
    rig.startWorker();
    expect(await finished(await now("C8"))).toMatchObject({ status: "posted", messages: 1, groups: 2 });
    const text = messageText(posts("C8")[0] ?? { text: "" });
    expect(text).toContain("*Lumen DB Support*");
    expect(text).toContain("*Saturday Rides*");
  });

  it("asks the triage store which threads are handled here, and says how many", async () => {
    await rig.subscribe("C9", SUPPORT, "Lumen DB Support");
    const asked: Array<{ channel: string; ids: string[] }> = [];
    rig.startWorker({
      handled: async (channel, ids) => {
        asked.push({ channel, ids });
        return new Set(ids.slice(0, 2));
      },
    });
    await finished(await now("C9"));
    expect(asked).toHaveLength(1);
    expect(asked[0]?.channel).toBe("C9");
    const text = messageText(posts("C9")[0] ?? { text: "" });
    const total = /\*Threads active\*\n([\d,]+)/.exec(text)?.[1];
    expect(Number(total?.replace(/,/g, ""))).toBe(asked[0]?.ids.length);
    expect(text).toContain(`*Marked handled here*\n2 of ${total ?? "?"} (Mark handled on their cards)`);
  });

  it("a triage store that fails leaves the handled line out, not the summary", async () => {
    await rig.subscribe("C10", SUPPORT, "Lumen DB Support");
    rig.startWorker({ handled: () => Promise.reject(new Error("triage store down")) });
    expect(await finished(await now("C10"))).toMatchObject({ status: "posted", messages: 1 });
    const text = messageText(posts("C10")[0] ?? { text: "" });
    expect(text).toContain("Weekly summary: Lumen DB Support");
    expect(text).not.toContain("Marked handled");
  });

  it("a chart that cannot be drawn is left out; the summary posts", async () => {
    await rig.subscribe("C2", SUPPORT, "Lumen DB Support");
    rig.startWorker({
      renderChart: () => Promise.reject(new Error("no Skia on this platform")),
    });
    const result = await finished(await now("C2"));
    expect(result).toMatchObject({ status: "posted", messages: 1, charts: 0 });
    expect(messageText(posts("C2")[0] ?? { text: "" })).toContain("Weekly summary: Lumen DB Support");
    expect(rig.slack.files).toHaveLength(0);
  });

  it("an Insight outage is retried before anything is posted", async () => {
    await rig.subscribe("C3", SUPPORT, "Lumen DB Support");
    rig.em.faults.set({ serverError: { count: 1, status: 503 }, path: /displaychatthread/ });
    rig.startWorker();
    const job = await now("C3");
    expect(await finished(job)).toMatchObject({ status: "posted", messages: 1 });
    const after = await rig.queue.getJob(job.id ?? "");
    expect(after?.attemptsMade).toBe(2);
    expect(posts("C3")).toHaveLength(1);
  });

  it("on the last attempt an unreachable group is named instead, the others summarised", async () => {
    await rig.subscribe("C4", SUPPORT, "Lumen DB Support");
    await rig.subscribe("C4", RIDES, "Saturday Rides");
    rig.em.faults.set({ serverError: { count: 100, status: 503 }, path: new RegExp(RIDES) });
    rig.startWorker();
    const result = await finished(await now("C4"));
    rig.em.faults.clear();
    expect(result).toMatchObject({ status: "posted", messages: 1 });
    const [m] = posts("C4");
    const text = messageText(m ?? { text: "" });
    expect(text).toContain("Weekly summary: Lumen DB Support");
    expect(posts("C4")).toHaveLength(1);
    // A service that did not answer is a failure, not a refusal.
    expect(text).toContain(":warning: Could not read *Saturday Rides*: the Insight Service did not answer");
  });

  it("a channel Slack refuses fails the job for good and alerts operators", async () => {
    await rig.subscribe("C5", SUPPORT, "Lumen DB Support");
    rig.slack.fail.error("chat.postMessage", "channel_not_found", { channel: "C5" });
    const w = rig.startWorker();
    const failed = new Promise<string>((resolve) => w.once("failed", (_j, err) => resolve(err.message)));
    await now("C5");
    expect(await failed).toContain("channel_not_found");
    const alerts = await rig.redis.hgetall(rig.keys.opsAlerts);
    // The one refusal policy (jobs/refused-by-slack.ts): a channel that is gone is one incident per channel and code, whoever was refused.
    expect(Object.keys(alerts)).toContain("channel-C5-channel_not_found");
    const job = await rig.queue.getJob("now-C5");
    expect(job?.attemptsMade).toBe(1); // unrecoverable: not retried
  });

  it("waits out a Slack 429 and posts once", async () => {
    await rig.subscribe("C6", SUPPORT, "Lumen DB Support");
    rig.slack.fail.rateLimit("chat.postMessage", { count: 1, retryAfterSeconds: 1 });
    rig.startWorker();
    expect(await finished(await now("C6"))).toMatchObject({ status: "posted", messages: 1 });
    expect(posts("C6")).toHaveLength(1);
    expect(
      rig.slack.calls.filter((c) => c.method === "chat.postMessage" && c.error === "ratelimited"),
    ).toHaveLength(1);
  });

  it("a channel that follows nothing gets nothing", async () => {
    rig.startWorker();
    expect(await finished(await now("C7"))).toEqual({ status: "no_subscriptions" });
    expect(posts("C7")).toHaveLength(0);
  });
});
