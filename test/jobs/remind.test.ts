import type { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { prepareReminder, reminderJob, sendReminder } from "../../src/jobs/slack-jobs/remind.js";
import { silentLogger } from "../../src/log.js";
import { pressRemind, type RemindDeps } from "../../src/slack/actions/remind.js";
import type { ActionReply } from "../../src/slack/actions/reply.js";
import type { Reminder } from "../../src/domain/reminder.js";
import { stateKeys } from "../../src/store/keys.js";
import { MessageRefStore } from "../../src/store/message-refs.js";
import { createRedis } from "../../src/store/redis.js";
import { ReminderStore } from "../../src/store/reminders.js";
import { TriageStore } from "../../src/store/triage.js";
import { WatchDmRefs } from "../../src/store/watch-dms.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";
import { digest } from "../helpers/personal-builders.js";

const NOW = new Date("2026-03-13T22:30:40.000Z"); // 23:30 in Berlin
const CHANNEL = "C0DIGESTS";
const CARD_TS = "1773403500.000100";
const BLOCK_ID = 'digest.card:{"g":"group-support-01","t":"thr_refund"}';

describe("remind me later (real Redis)", () => {
  let redis: Redis;
  let prefix: string;
  let reminders: ReminderStore;
  let refs: MessageRefStore;
  let triage: TriageStore;
  let watchDms: WatchDmRefs;
  let scheduled: Reminder[];
  let replies: ActionReply[];
  let deps: RemindDeps;

  beforeAll(() => {
    redis = createRedis(testRedisUrl(), "shared", silentLogger);
  });
  afterAll(() => redis.disconnect());
  beforeEach(async () => {
    prefix = uniquePrefix("remind");
    const keys = stateKeys(prefix);
    reminders = new ReminderStore(redis, keys);
    refs = new MessageRefStore(redis, keys);
    triage = new TriageStore(redis, keys);
    watchDms = new WatchDmRefs(redis, keys);
    scheduled = [];
    replies = [];
    deps = {
      reminders,
      refs,
      watchDms,
      scheduleReminder: async (r) => {
        scheduled.push(r);
      },
      userTimeZoneOf: async () => "Europe/Berlin",
      logger: silentLogger,
      now: () => NOW,
    };
    await refs.setIfNewer(CHANNEL, "thr_refund", {
      ts: CARD_TS,
      enrichedAtMs: Date.parse("2026-03-13T12:05:00Z"),
      hasSentiment: true,
      groupId: "group-support-01",
      card: { digest: digest(), change: [], noLongerMatches: false },
    });
  });
  afterEach(async () => dropPrefix(prefix));

  const press = (choice: string, userId = "U0MAYA") =>
    pressRemind(deps, {
      userId,
      channelId: CHANNEL,
      cardTs: CARD_TS,
      blockId: BLOCK_ID,
      choice,
      respond: async (r) => {
        replies.push(r);
      },
    });

  it("records the reminder under the presser, queues its delayed job once, and says when, privately", async () => {
    expect(await press("tomorrow")).toBe("added");
    expect(await press("tomorrow")).toBe("exists"); // a double click
    const due = Date.parse("2026-03-14T08:00:00Z"); // 9:00 tomorrow in Berlin
    const [r] = await reminders.list("U0MAYA");
    expect(r).toEqual({
      id: `${due / 60_000}.${CHANNEL}.${CARD_TS}`,
      userId: "U0MAYA",
      channelId: CHANNEL,
      cardTs: CARD_TS,
      threadId: "thr_refund",
      groupId: "group-support-01",
      title: "Refund failed after the upgrade",
      dueAtMs: due,
      createdAtMs: NOW.getTime(),
    });
    expect(scheduled).toEqual([r]);
    expect(replies.map((x) => [x.response_type, x.text])).toEqual([
      [
        "ephemeral",
        `:alarm_clock: I will remind you about *Refund failed after the upgrade* (<!date^${due / 1000}^{date_short_pretty} at {time}|2026-03-14 08:00 UTC>), unless it is marked handled by then. Cancel it from \`/insight watch list\` or the Home tab.`,
      ],
      [
        "ephemeral",
        `:alarm_clock: You already have a reminder about *Refund failed after the upgrade* (<!date^${due / 1000}^{date_short_pretty} at {time}|2026-03-14 08:00 UTC>).`,
      ],
    ]);
    // Its job: one id in every process, delayed to its time.
    expect(reminderJob(r as Reminder, NOW.getTime())).toEqual({
      name: "remind",
      data: { kind: "remind", channelId: "U0MAYA", userId: "U0MAYA", reminderId: r?.id },
      opts: { jobId: `remind|U0MAYA|${r?.id}`, delay: due - NOW.getTime() },
    });
    expect(await reminders.list("U0SAM")).toEqual([]);
  });

  it("a stale menu is refused; a job that cannot be queued takes the reminder back", async () => {
    expect(
      await pressRemind(deps, {
        userId: "U0MAYA",
        channelId: CHANNEL,
        cardTs: CARD_TS,
        blockId: "something else",
        choice: "1h",
        respond: async (r) => {
          replies.push(r);
        },
      }),
    ).toBe("refused");
    expect(replies[0]?.text).toContain("This button no longer works");
    deps.scheduleReminder = async () => {
      throw new Error("redis down");
    };
    await expect(press("1h")).rejects.toThrow("redis down");
    expect(await reminders.list("U0MAYA")).toEqual([]);
  });

  it("when it fires: the DM with the thread's state now and the card's link; then it is forgotten", async () => {
    await press("1h");
    const [r] = await reminders.list("U0MAYA");
    await triage.assign("thr_refund", "U0SAM", "U0MAYA", NOW);
    const prepared = await prepareReminder(
      { reminders, refs, triage, watchDms, logger: silentLogger },
      {
        userId: "U0MAYA",
        reminderId: r?.id ?? "",
      },
    );
    expect(prepared).toEqual({
      userId: "U0MAYA",
      reminderId: r?.id,
      text: [
        ":alarm_clock: Reminder: *Refund failed after the upgrade* — Lumen DB Support",
        ":red_circle: Negative · :clock3: Awaiting answer · 6 messages · last activity <!date^1773403200^{date_short_pretty} at {time}|2026-03-13 12:00 UTC> · :bust_in_silhouette: assigned to <@U0SAM>",
        "Not marked handled yet.",
      ].join("\n"),
      card: { channel: CHANNEL, ts: CARD_TS },
    });
    const posted: { channel: string; text: string }[] = [];
    const sender = {
      openDm: async (u: string) => `D${u.slice(1)}`,
      permalink: async (c: string, ts: string) =>
        `https://relay.slack.com/archives/${c}/p${ts.replace(".", "")}`,
      post: async (a: { channel: string; text: string }) => {
        posted.push(a);
        return "1.1";
      },
    };
    if (!prepared) throw new Error("nothing prepared");
    expect(await sendReminder({ sender, reminders, logger: silentLogger }, prepared)).toBe("sent");
    expect(posted).toEqual([
      {
        channel: "D0MAYA",
        text: `${prepared.text}\n<https://relay.slack.com/archives/${CHANNEL}/p1773403500000100|Open the card>`,
      },
    ]);
    expect(await reminders.list("U0MAYA")).toEqual([]);
  });

  it("cancelled: nothing is sent when its time comes", async () => {
    await press("4h");
    const [r] = await reminders.list("U0MAYA");
    expect(await reminders.remove("U0MAYA", r?.id ?? "")).toBe(true);
    expect(
      await prepareReminder(
        { reminders, refs, triage, watchDms, logger: silentLogger },
        {
          userId: "U0MAYA",
          reminderId: r?.id ?? "",
        },
      ),
    ).toBeUndefined();
  });

  it("handled meanwhile: nothing is sent, and the reminder is forgotten", async () => {
    await press("1h");
    const [r] = await reminders.list("U0MAYA");
    await triage.setHandled("thr_refund", true, "U0SAM", NOW);
    expect(
      await prepareReminder(
        { reminders, refs, triage, watchDms, logger: silentLogger },
        {
          userId: "U0MAYA",
          reminderId: r?.id ?? "",
        },
      ),
    ).toBeUndefined();
    expect(await reminders.list("U0MAYA")).toEqual([]);
  });
});
