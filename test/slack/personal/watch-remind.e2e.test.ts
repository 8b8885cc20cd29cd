import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { dmChannelOf } from "../../../dev/slack-standin/server.js";
import { reminderJob } from "../../../src/jobs/slack-jobs/remind.js";
import { reminderId, type Reminder } from "../../../src/domain/reminder.js";
import {
  digestsOf,
  messageText,
  startHarness,
  TEST_CHANNEL,
  type Harness,
} from "../../helpers/app-harness.js";
import { ask, button, click, sendEvent } from "../commands/helpers.js";
import { allTexts } from "../render/walk.js";

/*
 * `/insight watch` and Remind me later through Slack's requests, signed, against real Redis,
 * BullMQ and the stand-in Slack: what a person reads at each step.
 */

const GROUP = SEED.groups.support;
const MAYA = "U0MAYA";

describe("watches and reminders through Slack", () => {
  let h: Harness;
  let threadId: string;
  let cardTs: string;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(GROUP);
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Backups to S3 twice as slow since 0.15",
      summary: "Nightly backups take twice as long since the upgrade.",
      sentiment: "negative",
    });
    threadId = thread.id;
    cardTs = (await h.slack.waitFor(() => digestsOf(h, threadId)[0], { timeoutMs: 15_000 })).ts;
    for (let n = 0; n < 100 && (await h.workspace.refs.get(TEST_CHANNEL, threadId))?.ts !== cardTs; n++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => h?.stop());

  it("/insight watch confirms privately what it understood; watch list lists it with Remove, which stops it", async () => {
    const added = await ask(h, "watch backups slow --group support --quiet 22:00-07:00", { user: MAYA });
    expect(added.text).toBe(
      [
        ":telescope: Watching: “backups slow” in Lumen DB Support · quiet 22:00–07:00.",
        "A thread matches when every word is in its title, summary or keywords and it passes the filters.",
        "You get a DM when a thread first matches; later changes edit that DM instead of sending another. Between 22:00 and 07:00 (UTC) they wait, and come gathered in one DM when your quiet hours end.",
        "This is watch 1 of 10: `/insight watch list` shows them, `/insight watch off 1` stops this one.",
      ].join("\n"),
    );
    const bad = await ask(h, "watch backups --daily 25:00", { user: MAYA });
    expect(bad.text).toBe(
      [
        'I could not read that: --daily takes a time of day, like --daily 09:00 (I read "25:00").',
        "Understood so far: words “backups”.",
        "Example: `/insight watch refund failed --group Lumen DB Support --sentiment negative --quiet 22:00-07:00` (filters as for `subscribe`: see `/insight help`).",
      ].join("\n"),
    );
    const list = await ask(h, "watch list", { user: MAYA });
    expect(list.text).toBe("Your watches: 1 of 10");
    expect(allTexts(list.blocks)).toContain("*1.* “backups slow” in Lumen DB Support · quiet 22:00–07:00");
    // Another person sees their own list only.
    expect((await ask(h, "watch list", { user: "U0SAM" })).text).toBe("You watch nothing yet.");
    const removed = await (
      await click(h, button(list.blocks, "insight.watch.remove"), { user: MAYA })
    ).reply();
    expect(removed.replace_original).toBe(true);
    expect(allTexts(removed.blocks)[0]).toBe(
      ":heavy_check_mark: Stopped watching “backups slow” in Lumen DB Support · quiet 22:00–07:00.",
    );
    expect(await h.workspace.watches.list(MAYA)).toEqual([]);
  });

  it("Remind me on a card: recorded, a delayed job queued once, and the presser told when, privately", async () => {
    const card = digestsOf(h, threadId)[0];
    const actions = (card?.blocks as { type: string; block_id?: string }[]).find((b) => b.type === "actions");
    const id = `act-${Math.random().toString(36).slice(2, 8)}`;
    const press = () =>
      h.interact({
        type: "block_actions",
        user: { id: MAYA, username: "maya", name: "maya", team_id: "T0STANDIN" },
        api_app_id: "A0STANDIN",
        token: "legacy-verification-token-unused",
        container: { type: "message", message_ts: cardTs, channel_id: TEST_CHANNEL, is_ephemeral: false },
        trigger_id: "trigger-remind",
        team: { id: "T0STANDIN", domain: "insight-relay-test" },
        channel: { id: TEST_CHANNEL, name: "community-insights" },
        message: { type: "message", ts: cardTs, text: card?.text ?? "" },
        response_url: h.slack.responseUrl(id),
        actions: [
          {
            type: "static_select",
            action_id: "digest.remind",
            block_id: actions?.block_id,
            selected_option: { text: { type: "plain_text", text: "In 1 hour" }, value: "1h" },
            action_ts: "1.2",
          },
        ],
      });
    const before = Date.now();
    expect((await press()).status).toBe(200);
    const reply = await h.slack.waitFor(() => h.slack.responses.find((r) => r.id === id));
    const [r] = await h.workspace.reminders.list(MAYA);
    expect(r).toMatchObject({
      channelId: TEST_CHANNEL,
      cardTs,
      threadId,
      title: "Backups to S3 twice as slow since 0.15",
    });
    const due = r?.dueAtMs ?? 0;
    expect(due).toBeGreaterThan(before + 3_500_000);
    expect(due).toBeLessThanOrEqual(before + 3_600_000);
    expect(reply.body).toMatchObject({
      response_type: "ephemeral",
      text: `:alarm_clock: I will remind you about *Backups to S3 twice as slow since 0.15* (<!date^${due / 1000}^{date_short_pretty} at {time}|${new Date(due).toISOString().slice(0, 16).replace("T", " ")} UTC>), unless it is marked handled by then. Cancel it from \`/insight watch list\` or the Home tab.`,
    });
    const job = await h.services.queues.slack.getJob(`remind|${MAYA}|${r?.id}`);
    expect(await job?.getState()).toBe("delayed");
    expect(job?.data).toMatchObject({ kind: "remind", userId: MAYA, reminderId: r?.id });
    // The same choice again within the minute: still one reminder, one job.
    await press();
    await h.slack.waitFor(() => h.slack.responses.filter((x) => x.id === id).length === 2);
    expect(await h.workspace.reminders.list(MAYA)).toHaveLength(1);
    expect(
      (await h.services.queues.slack.getJobs(["delayed"])).filter((j) => j.data.kind === "remind"),
    ).toHaveLength(1);
  });

  /** A reminder on the card, due in `ms`, queued as the listener queues it. */
  async function remindIn(ms: number, userId = MAYA): Promise<Reminder> {
    const dueAtMs = Date.now() + ms;
    const r: Reminder = {
      id: `${reminderId({ dueAtMs, channelId: TEST_CHANNEL, cardTs })}.${Math.random().toString(36).slice(2, 6)}`,
      userId,
      channelId: TEST_CHANNEL,
      cardTs,
      threadId,
      groupId: GROUP,
      title: "Backups to S3 twice as slow since 0.15",
      dueAtMs,
      createdAtMs: Date.now(),
    };
    await h.workspace.reminders.add(r);
    const job = reminderJob(r, Date.now());
    // Twice: the job id makes it one job, so one DM.
    await h.services.queues.slack.add(job.name, job.data, job.opts);
    await h.services.queues.slack.add(job.name, job.data, job.opts);
    return r;
  }

  it("when its time comes: one DM with the thread's state and the card's link", async () => {
    const r = await remindIn(300, "U0DANA");
    const dm = await h.slack.waitFor(() => h.slack.messages(dmChannelOf("U0DANA"))[0], { timeoutMs: 10_000 });
    expect(messageText(dm)).toMatch(
      /^:alarm_clock: Reminder: \*Backups to S3 twice as slow since 0\.15\* — Lumen DB Support\n:red_circle: Negative · /,
    );
    expect(dm.text).toContain("Not marked handled yet.");
    expect(dm.text).toMatch(
      new RegExp(
        `<https://insight-relay-test\\.slack\\.com/archives/${TEST_CHANNEL}/p\\d+\\|Open the card>$`,
      ),
    );
    await new Promise((res) => setTimeout(res, 500));
    expect(h.slack.messages(dmChannelOf("U0DANA"))).toHaveLength(1);
    expect(await h.workspace.reminders.get("U0DANA", r.id)).toBeUndefined();
  });

  it("Home lists pending reminders with Cancel; a cancelled one sends nothing when its time comes", async () => {
    const r = await remindIn(1_500, "U0LEE");
    await sendEvent(h, {
      type: "app_home_opened",
      user: "U0LEE",
      channel: "D0LEE",
      tab: "home",
      event_ts: "1.2",
    });
    const home = await h.slack.waitFor(
      () => h.slack.views.published.get("U0LEE") as { blocks: unknown[] } | undefined,
    );
    const texts = allTexts(home.blocks);
    expect(texts).toContain(":telescope: *My watches* — 0 of 10, seen only by you");
    expect(texts).toContain("*Pending reminders (1)*");
    const cancel = button(home.blocks, "insight.remind.cancel");
    const publishes = h.slack.calls.filter(
      (c) => c.method === "views.publish" && c.args.user_id === "U0LEE",
    ).length;
    await click(h, cancel, {
      user: "U0LEE",
      container: { type: "view", view_id: "V0HOME" },
      view: { id: "V0HOME", type: "home", state: { values: {} } },
    });
    await h.slack.waitFor(
      () =>
        h.slack.calls.filter((c) => c.method === "views.publish" && c.args.user_id === "U0LEE").length >
        publishes,
    );
    const after = allTexts((h.slack.views.published.get("U0LEE") as { blocks: unknown[] }).blocks);
    expect(after).toContain(":heavy_check_mark: Reminder cancelled.");
    expect(after).not.toContain("*Pending reminders (1)*");
    expect(await h.workspace.reminders.get("U0LEE", r.id)).toBeUndefined();
    await new Promise((res) => setTimeout(res, 2_000));
    expect(h.slack.messages(dmChannelOf("U0LEE"))).toEqual([]);
  });

  it("a thread marked handled meanwhile: nothing is sent", async () => {
    await h.workspace.triage.setHandled(threadId, true, "U0SAM", new Date());
    const r = await remindIn(300, "U0KIM");
    await new Promise((res) => setTimeout(res, 1_500));
    expect(h.slack.messages(dmChannelOf("U0KIM"))).toEqual([]);
    expect(await h.workspace.reminders.get("U0KIM", r.id)).toBeUndefined();
  });
});
