import { SUBSCRIPTION_NOTICE } from "../../src/slack/commands/subscribe.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { weekWindow } from "../../src/domain/weekly-window.js";
import { ACTIONS } from "../../src/slack/action-ids.js";
import { messageText, startHarness, type Harness } from "../helpers/app-harness.js";
import { ask, button, click } from "../slack/commands/helpers.js";
import { pngSize } from "./png.js";

const GROUP = SEED.groups.support;

/** The week as the emulator holds it (the last 7 days up to now, today included, in the default zone). */
function expectedWeek(h: Harness, groupId: string) {
  const w = weekWindow(Date.now(), h.config.weekly.defaultTimezone, { untilNow: true });
  const week = h.emulator.store.threads(groupId).filter((t) => {
    const ms = Date.parse(t.lastMessageDate);
    return ms >= w.start && ms < w.end;
  });
  return {
    threads: week.length,
    messages: week.reduce((n, t) => n + t.messageCount, 0),
    questions: week.filter((t) => t.isQuestionLed).length,
  };
}

/** The channel's top-level posts, less the notice that subscribing posts. */
const postsIn = (h: Harness, channel: string) =>
  h.slack
    .messages(channel)
    // The subscription's own public line is not a summary.
    .filter((m) => m.thread_ts === undefined && !isSubscriptionNotice(m));

describe("weekly now, end to end (emulator + stand-in Slack)", () => {
  let h: Harness;
  const limitedKey = "limited-key-for-weekly-tests-0001";
  beforeAll(async () => {
    h = await startHarness({ emulator: { limitedKey } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("acks at once, replies that it is coming, then posts the summary and its chart to the channel", async () => {
    const channel = "C0WEEKLY1";
    await h.subscribe(GROUP, channel);
    const want = expectedWeek(h, GROUP);
    expect(want.threads).toBeGreaterThan(0);

    const reply = await ask(h, "weekly now", { channel });
    expect(reply.text).toContain("on its way");
    expect(reply.response_type ?? "ephemeral").toBe("ephemeral");

    const summary = await h.slack.waitFor(() => postsIn(h, channel)[0], { timeoutMs: 20_000 });
    const text = messageText(summary);
    expect(text).toContain("Weekly summary: Lumen DB Support");
    // Threads and messages as the emulator holds them (every page of last7Days was read).
    expect(text).toContain(`*Threads active*\n${want.threads.toLocaleString("en-US")}`);
    expect(text).toContain(`*Messages in these threads*\n${want.messages.toLocaleString("en-US")}`);
    expect(text).toContain(
      `${want.questions} thread${want.questions === 1 ? "" : "s"} started with a question`,
    );
    expect(text).toContain("*Sentiment*");
    // Keywords only as recurring themes (two threads or more), never a mention: the seeded week
    // has none that recur, so the line is left out rather than a tail of (1)s.
    expect(text).not.toMatch(/keywords.*\(1\)/);
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("*Most active threads*");
    expect(text).toContain("*Busiest days* (threads by day of last activity)");

    // The chart is a reply in the summary's thread, a real PNG of the intended size.
    const file = await h.slack.waitFor(
      () => h.slack.files.find((f) => f.channel === channel && f.completed),
      {
        timeoutMs: 20_000,
      },
    );
    expect(file.filename).toBe("weekly-sentiment.png");
    expect(file.threadTs).toBe(summary.ts);
    expect(postsIn(h, channel)).toHaveLength(1);
    expect(pngSize(file.bytes)).toEqual({ width: 1000, height: 520 });
    expect(file.title).toContain("Lumen DB Support");

    // "View messages" on a most active thread opens the commands module's messages modal.
    const b = button(summary.blocks, ACTIONS.viewMessages);
    expect(JSON.parse(b.value)).toMatchObject({ g: GROUP, p: 1 });
    const opened = h.slack.views.opened.length;
    const res = await click(h, b, { channel });
    expect(res.status).toBe(200);
    await h.slack.waitFor(() => h.slack.views.opened.length > opened, { timeoutMs: 10_000 });
  });

  it("a second `weekly now` right after is refused politely, and nothing more is posted", async () => {
    const channel = "C0WEEKLY1";
    const before = postsIn(h, channel).length;
    const reply = await ask(h, "weekly now", { channel });
    expect(reply.text).toContain("a moment ago");
    await new Promise((r) => setTimeout(r, 300));
    expect(postsIn(h, channel).length).toBe(before);
  });

  it("covers the last 7 days up to now: a group whose threads are all from today reports them", async () => {
    const channel = "C0WEEKLYTODAY";
    const group = h.emulator.store.addGroup(SEED.communities.primary, { name: "Launch day" });
    const startOfToday = new Date(new Date().toISOString().slice(0, 10)).getTime();
    const at = Math.max(Date.now() - 60_000, startOfToday + 1_000);
    for (const i of [1, 2, 3]) {
      h.emulator.store.addThread(group._id, {
        title: `Launch question ${i}`,
        lastMessageDate: new Date(at - i).toISOString(),
        messageCount: 2,
      });
    }
    await h.workspace.subscriptions.put({
      channelId: channel,
      groupId: group._id,
      groupName: group.name,
      communityId: SEED.communities.primary,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
    });
    const reply = await ask(h, "weekly now", { channel });
    expect(reply.text).toContain(
      "A summary of the last 7 days up to now, today included (UTC), of the 1 chat group this channel follows is on its way",
    );
    const m = await h.slack.waitFor(() => postsIn(h, channel)[0], { timeoutMs: 20_000 });
    const text = messageText(m);
    expect(text).toContain("Weekly summary: Launch day");
    expect(text).toContain("*Threads active*\n3");
    expect(text).toContain("the last 7 days up to now, today included, in UTC.");
    // Its chart too, before the next test injects an upload failure.
    await h.slack.waitFor(() => h.slack.files.find((f) => f.channel === channel && f.completed), {
      timeoutMs: 20_000,
    });
  });

  it("a week without threads says so in one line", async () => {
    const channel = "C0WEEKLYQUIET";
    const quiet = h.emulator.store.addGroup(SEED.communities.primary, { name: "Lumen DB Announcements" });
    await h.workspace.subscriptions.put({
      channelId: channel,
      groupId: quiet._id,
      groupName: quiet.name,
      communityId: SEED.communities.primary,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
    });
    await ask(h, "weekly now", { channel });
    const m = await h.slack.waitFor(() => postsIn(h, channel)[0], { timeoutMs: 20_000 });
    expect(m.blocks).toHaveLength(1);
    const line = messageText({ text: "", blocks: m.blocks });
    expect(line.trim().split("\n")).toHaveLength(1);
    expect(line).toContain("a quiet week, no threads in *Lumen DB Announcements*");
    expect(h.slack.files.some((f) => f.channel === channel)).toBe(false);
  });

  it("a Slack upload failure leaves the chart out, not the summary", async () => {
    const channel = "C0WEEKLYNOCHART";
    await h.subscribe(SEED.groups.contributors, channel);
    h.slack.fail.error("files.getUploadURLExternal", "internal_error", { count: 1 });
    await ask(h, "weekly now", { channel });
    const m = await h.slack.waitFor(() => postsIn(h, channel)[0], { timeoutMs: 20_000 });
    expect(messageText(m)).toContain("Weekly summary: Lumen DB Contributors");
    await new Promise((r) => setTimeout(r, 500));
    expect(h.slack.files.some((f) => f.channel === channel)).toBe(false);
    expect(postsIn(h, channel)).toHaveLength(1);
  });
});

describe("weekly now with a key that may not read every group", () => {
  let h: Harness;
  const limitedKey = "limited-key-for-weekly-tests-0002";
  beforeAll(async () => {
    h = await startHarness({ emulator: { limitedKey }, env: { INSIGHT_API_KEY: limitedKey } });
  });
  afterAll(async () => {
    await h?.stop();
  });

  it("names the group that answers 403 in the summary and still summarises the others", async () => {
    const channel = "C0WEEKLY403";
    await h.subscribe(GROUP, channel);
    // The key cannot read the restricted community, so subscribe would refuse: put it directly,
    // as if access had been withdrawn after subscribing.
    await h.workspace.subscriptions.put({
      channelId: channel,
      groupId: SEED.groups.beta,
      groupName: "Pocketbook Beta Testers",
      communityId: SEED.communities.restricted,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date(Date.now() + 1_000).toISOString(),
    });
    await ask(h, "weekly now", { channel });
    const m = await h.slack.waitFor(() => postsIn(h, channel)[0], { timeoutMs: 20_000 });
    const text = messageText(m);
    expect(text).toContain("Weekly summary: Lumen DB Support");
    expect(text).toContain("Could not read *Pocketbook Beta Testers*");
    expect(text).toContain("403");
    expect(h.emulator.requests.all().some((r) => r.path.includes(SEED.groups.beta) && r.status === 403)).toBe(
      true,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(postsIn(h, channel)).toHaveLength(1);
  });
});

function isSubscriptionNotice(m: { metadata?: unknown }): boolean {
  return (m.metadata as { event_type?: string } | undefined)?.event_type === SUBSCRIPTION_NOTICE;
}
