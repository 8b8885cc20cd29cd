import { Job, QueueEvents } from "bullmq";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { schedulerId, type WeeklyJob } from "../../src/weekly/schedules.js";
import { startRig, type WeeklyRig } from "./rig.js";

const MONDAY_9 = "0 9 * * 1";

const schedule = (channelId: string, cron = MONDAY_9, timeZone = "Europe/Paris") => ({
  channelId,
  cron,
  timeZone,
  setBy: "U0ADMIN",
  setAt: "2026-03-01T10:00:00.000Z",
});

describe("weekly schedules on BullMQ job schedulers (real Redis)", () => {
  let rig: WeeklyRig;
  beforeEach(async () => {
    rig = await startRig();
  });
  afterEach(async () => {
    await rig?.close();
  });

  const delayed = async () => (await rig.queue.getDelayed()).map((j) => j.id ?? "");

  it("creates one job scheduler per channel with the cron and zone, and one next job", async () => {
    const info = await rig.schedules.set(schedule("C1"));
    const s = await rig.queue.getJobScheduler(schedulerId("C1"));
    expect(s).toMatchObject({ pattern: MONDAY_9, tz: "Europe/Paris" });
    expect(info.next).toBeInstanceOf(Date);
    // The next Monday, 09:00 in Paris.
    const local = new Intl.DateTimeFormat("en-GB", {
      timeZone: "Europe/Paris",
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
    }).format(info.next);
    expect(local).toBe("Mon 09:00");
    expect(await delayed()).toEqual([expect.stringContaining(schedulerId("C1"))]);
    const job = (await rig.queue.getDelayed())[0];
    expect(job?.data).toEqual({ channelId: "C1", trigger: "schedule", timeZone: "Europe/Paris" });
    expect(job?.opts.attempts).toBe(2);
  });

  it("changing a schedule keeps one scheduler and one next job", async () => {
    await rig.schedules.set(schedule("C1"));
    const changed = await rig.schedules.set(schedule("C1", "30 7 * * 5", "America/New_York"));
    expect(await rig.queue.getJobSchedulersCount()).toBe(1);
    expect(await rig.queue.getJobScheduler(schedulerId("C1"))).toMatchObject({
      pattern: "30 7 * * 5",
      tz: "America/New_York",
    });
    expect(await delayed()).toHaveLength(1);
    expect((await rig.schedules.get("C1"))?.cron).toBe("30 7 * * 5");
    expect(changed.next?.getTime()).toBe((await rig.queue.getJobScheduler(schedulerId("C1")))?.next);
  });

  it("removing a schedule removes its scheduler, its next job and its row", async () => {
    await rig.schedules.set(schedule("C1"));
    await rig.schedules.set(schedule("C2"));
    expect(await rig.schedules.remove("C1")).toBe(true);
    expect(await rig.queue.getJobScheduler(schedulerId("C1"))).toBeUndefined();
    expect(await rig.schedules.get("C1")).toBeUndefined();
    expect(await delayed()).toEqual([expect.stringContaining(schedulerId("C2"))]);
    expect(await rig.schedules.remove("C1")).toBe(false);
  });

  it("survives a restart: a new process sees the same schedule and next run", async () => {
    const before = await rig.schedules.set(schedule("C1"));
    await rig.queue.close();
    const fresh = rig.connect(); // new connection, new Queue: what a restarted process builds
    const after = await fresh.schedules.get("C1");
    expect(after).toMatchObject({ cron: MONDAY_9, timeZone: "Europe/Paris", setBy: "U0ADMIN" });
    expect(after?.next?.getTime()).toBe(before.next?.getTime());
    expect(await fresh.queue.getJobSchedulersCount()).toBe(1);
  });

  it("two scheduler processes re-asserting at start leave one scheduler and one next job", async () => {
    await rig.schedules.set(schedule("C1"));
    const a = rig.connect();
    const b = rig.connect();
    const [ra, rb] = await Promise.all([a.schedules.reassert(), b.schedules.reassert()]);
    expect(ra.restored).toEqual([]); // nothing to do: BullMQ already has it
    expect(rb.restored).toEqual([]);
    expect(await rig.queue.getJobSchedulersCount()).toBe(1);
    expect(await delayed()).toHaveLength(1);
  });

  it("re-asserting puts back a scheduler that went missing and removes one nobody asked for", async () => {
    await rig.schedules.set(schedule("C1"));
    await rig.queue.removeJobScheduler(schedulerId("C1")); // e.g. the queue was cleaned from the dashboard
    await rig.queue.upsertJobScheduler(schedulerId("C9"), { pattern: MONDAY_9 }, { data: {} as WeeklyJob });
    const [r1, r2] = await Promise.all([
      rig.connect().schedules.reassert(),
      rig.connect().schedules.reassert(),
    ]);
    expect([...r1.restored, ...r2.restored]).toContain("C1");
    expect(await rig.queue.getJobScheduler(schedulerId("C1"))).toMatchObject({ pattern: MONDAY_9 });
    expect(await rig.queue.getJobScheduler(schedulerId("C9"))).toBeUndefined();
    expect(await rig.queue.getJobSchedulersCount()).toBe(1);
    expect(await delayed()).toHaveLength(1);
  });

  it("a tick runs the summary once; a duplicate job for the same tick posts nothing", async () => {
    await rig.subscribe("C1", SEED.groups.support, "Lumen DB Support");
    await rig.schedules.set(schedule("C1"));
    const worker = rig.startWorker();
    const [tick] = await rig.queue.getDelayed();
    if (!tick) throw new Error("no scheduled job");
    const done = new Promise<unknown>((resolve) => worker.once("completed", (_j, r) => resolve(r)));
    await tick.promote(); // fire it now instead of next Monday
    expect(await done).toMatchObject({ status: "posted", messages: 1 });
    const posts = () => rig.slack.messages("C1").length;
    expect(posts()).toBe(1);

    // The same tick again, as a second scheduler or a replayed job would produce it.
    const events = new QueueEvents(rig.queue.name, { connection: rig.redis.duplicate(), prefix: rig.prefix });
    await events.waitUntilReady();
    const dup = await rig.queue.add("weekly-summary", tick.data, { prevMillis: tick.opts.prevMillis });
    const dupResult = await dup.waitUntilFinished(events, 15_000).finally(() => events.close());
    expect(dupResult).toMatchObject({ status: "duplicate", claim: "done" });
    expect(posts()).toBe(1);
    expect((await Job.fromId(rig.queue, dup.id ?? ""))?.returnvalue).toMatchObject({ status: "duplicate" });
  });
});
