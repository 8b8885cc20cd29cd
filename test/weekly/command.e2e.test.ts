import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { QUEUE_NAMES } from "../../src/jobs/job-types.js";
import { schedulerId, type WeeklyJob } from "../../src/weekly/schedules.js";
import { startHarness, type Harness } from "../helpers/app-harness.js";
import { ask } from "../slack/commands/helpers.js";

const ADMIN = "U0ADMIN";

describe("/insight weekly (signed slash commands against the whole app)", () => {
  let h: Harness;
  let queue: Queue<WeeklyJob>;
  beforeAll(async () => {
    h = await startHarness({
      // U0ALICE is who h.subscribe() types as.
      env: {
        ADMIN_USER_IDS: `${ADMIN},U0ALICE`,
        WEEKLY_DEFAULT_CRON: "30 7 * * 2",
        DEFAULT_TIMEZONE: "Asia/Tokyo",
      },
    });
    queue = new Queue<WeeklyJob>(QUEUE_NAMES.weekly, {
      connection: h.services.redis,
      prefix: h.config.redis.prefix,
    });
  });
  afterAll(async () => {
    await queue?.close();
    await h?.stop();
  });

  const as = (user: string, channel: string) => ({ user, channel });

  it("bare `weekly` says whether a summary is scheduled", async () => {
    const r = await ask(h, "weekly", as("U0BOB", "C0CMD1"));
    expect(r.text).toContain("No weekly summary is scheduled here");
    expect(r.text).toContain("weekly on [day] [time] [timezone]");
  });

  it("`weekly on` uses WEEKLY_DEFAULT_CRON and DEFAULT_TIMEZONE, and `list` shows the schedule", async () => {
    await h.subscribe(SEED.groups.support, "C0CMD1");
    const r = await ask(h, "weekly on", as(ADMIN, "C0CMD1"));
    expect(r.text).toContain("Scheduled. :calendar: Weekly summary: At 07:30, only on Tuesday (Asia/Tokyo).");
    expect(r.text).toMatch(/Next: Tue, \w+ \d+, 07:30 \(Asia\/Tokyo\)/);
    expect(r.text).toContain("It covers the 1 chat group this channel follows.");
    expect(await queue.getJobScheduler(schedulerId("C0CMD1"))).toMatchObject({
      pattern: "30 7 * * 2",
      tz: "Asia/Tokyo",
    });
    const list = await ask(h, "list", as("U0BOB", "C0CMD1"));
    expect(JSON.stringify(list.blocks ?? list.text)).toContain(
      ":calendar: Weekly summary: At 07:30, only on Tuesday (Asia/Tokyo).",
    );
  });

  it("`weekly on <cron> <zone>` changes it in place", async () => {
    const r = await ask(h, "weekly on 0 17 * * 5 Europe/Paris", as(ADMIN, "C0CMD1"));
    expect(r.text).toContain("Changed. :calendar: Weekly summary: At 17:00, only on Friday (Europe/Paris).");
    expect(await queue.getJobSchedulersCount()).toBe(1);
    expect(await queue.getJobScheduler(schedulerId("C0CMD1"))).toMatchObject({
      pattern: "0 17 * * 5",
      tz: "Europe/Paris",
    });
  });

  it("`weekly on` takes plain words in several zones", async () => {
    const fri = await ask(h, "weekly on fri 5pm America/Los_Angeles", as(ADMIN, "C0CMD4"));
    expect(fri.text).toContain(
      "Scheduled. :calendar: Weekly summary: At 17:00, only on Friday (America/Los_Angeles).",
    );
    expect(await queue.getJobScheduler(schedulerId("C0CMD4"))).toMatchObject({
      pattern: "0 17 * * 5",
      tz: "America/Los_Angeles",
    });
    const mon = await ask(h, "weekly on monday 09:00 Europe/Berlin", as(ADMIN, "C0CMD4"));
    expect(mon.text).toContain(
      "Changed. :calendar: Weekly summary: At 09:00, only on Monday (Europe/Berlin).",
    );
    expect(mon.text).toMatch(/Next: Mon, \w+ \d+, 09:00 \(Europe\/Berlin\)/);
    const off = await ask(h, "weekly off", as(ADMIN, "C0CMD4"));
    expect(off.text).toContain("Stopped");
  });

  it("bad input gets a plain reply and changes nothing", async () => {
    for (const [text, words] of [
      ["weekly on 0 9 * *", "a cron has five fields"],
      ["weekly on fri 5pmm", 'I could not read "5pmm". I understood: day: Fridays. For example'],
      ["weekly on 0 9 * * 1 Mars/Olympus", "is not a time zone I know"],
      [
        "weekly on 9am tuesday Mars/Olympus",
        '"Mars/Olympus" is not a time zone I know (an IANA name such as Europe/Berlin, America/Los_Angeles or UTC). I understood: day: Tuesdays · time: 09:00. For example',
      ],
      ["weekly on * * * * *", "`* * * * *` would post it many times a week"],
      [
        "weekly on weekdays 8am",
        "A weekly summary goes out once a week, and each covers the last 7 days: weekdays (Monday to Friday) at 08:00 would post it 5 times a week",
      ],
      ["weekly sometimes", "Use `/insight weekly on`"],
    ] as const) {
      const r = await ask(h, text, as(ADMIN, "C0CMD1"));
      expect(r.text).toContain(words);
    }
    expect(await queue.getJobScheduler(schedulerId("C0CMD1"))).toMatchObject({ pattern: "0 17 * * 5" });
  });

  it("`weekly on <time>` without a zone keeps the zone (and the day) the schedule had", async () => {
    const r = await ask(h, "weekly on 10am", as(ADMIN, "C0CMD1"));
    expect(r.text).toContain("Changed. :calendar: Weekly summary: At 10:00, only on Friday (Europe/Paris).");
    expect(await queue.getJobScheduler(schedulerId("C0CMD1"))).toMatchObject({
      pattern: "0 10 * * 5",
      tz: "Europe/Paris",
    });
  });

  it("only admins turn it on or off; `weekly now` is open to everyone", async () => {
    const on = await ask(h, "weekly on", as("U0BOB", "C0CMD2"));
    expect(on.text).toContain("Only the app's admins can use `/insight weekly on` here");
    const off = await ask(h, "weekly off", as("U0BOB", "C0CMD1"));
    expect(off.text).toContain("Only the app's admins can use `/insight weekly off` here");
    expect(await queue.getJobScheduler(schedulerId("C0CMD2"))).toBeUndefined();
    expect(await queue.getJobScheduler(schedulerId("C0CMD1"))).toBeDefined();

    const now = await ask(h, "weekly now", as("U0BOB", "C0CMD1"));
    expect(now.text).toContain("is on its way to this channel");
    // The channel also holds the subscription's public line: wait for the summary itself.
    const posted = await h.slack.waitFor(
      () => h.slack.messages("C0CMD1").find((m) => m.text.includes("Weekly summary")),
      { timeoutMs: 20_000 },
    );
    expect(posted.text).toContain("Weekly summary for Lumen DB Support");
  });

  it("`weekly now` where no group is followed says so and queues nothing", async () => {
    const r = await ask(h, "weekly now", as("U0BOB", "C0CMD3"));
    expect(r.text).toContain("This channel follows no chat group");
    expect(await queue.getJob(`weekly-now|C0CMD3`)).toBeUndefined();
    expect(
      (await queue.getJobs(["waiting", "active", "completed"])).some((j) => j.data.channelId === "C0CMD3"),
    ).toBe(false);
  });

  it("`weekly off` stops it", async () => {
    const r = await ask(h, "weekly off", as(ADMIN, "C0CMD1"));
    expect(r.text).toContain("Stopped");
    expect(await queue.getJobScheduler(schedulerId("C0CMD1"))).toBeUndefined();
    expect(await queue.getDelayed()).toHaveLength(0);
    const again = await ask(h, "weekly off", as(ADMIN, "C0CMD1"));
    expect(again.text).toContain("No weekly summary was scheduled here");
  });
});
