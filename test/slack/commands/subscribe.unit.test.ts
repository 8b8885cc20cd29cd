import { describe, expect, it } from "vitest";
import { channelIncident } from "../../../src/ops/incidents.js";
import { subscribeCommand } from "../../../src/slack/commands/subscribe.js";
import { unsubscribeCommand } from "../../../src/slack/commands/unsubscribe.js";
import { SlackCallError } from "../../../src/slack/errors.js";
import { classifyCode } from "../../../src/slack/errors.js";
import { dummyCommand, fakeCommandsDeps, FIXED_NOW } from "../../helpers/fakes.js";

const slackError = (method: string, code: string) => new SlackCallError(method, classifyCode(code));
const GROUP = "group-support-01";

// `subscribe` with in-memory deps: no Redis, no emulator, no Slack. The HTTP path is in subscriptions.test.ts.
describe("subscribe (unit, fake deps)", () => {
  it("records the subscription with its filters and delivery, says what is in force, announces once", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps();
    const { ctx, replies } = dummyCommand(
      `${GROUP} --sentiment negative,mixed --questions --every 4h --format compact`,
    );
    await subscribeCommand(deps).run(ctx);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.text).toBe(
      "Subscribed: this channel follows *Lumen DB Support* (`group-support-01`). In force: sentiment negative or mixed · questions only · digest every 4 hours, at 01:00, 05:00, …, 21:00 (Europe/Berlin).",
    );
    const sub = await subscriptions.get("C0UNIT", GROUP);
    expect(sub).toMatchObject({
      groupName: "Lumen DB Support",
      communityId: "community-1",
      filters: { sentiments: ["negative", "mixed"], questions: true },
      delivery: { mode: "digest", every: "4h", format: "compact" },
      createdBy: "U0ALICE",
      createdAt: FIXED_NOW.toISOString(),
    });
    expect(slack.posts).toEqual([
      {
        channel: "C0UNIT",
        text: "<@U0ALICE> subscribed this channel to *Lumen DB Support* — sentiment negative or mixed · questions only · digest every 4 hours, at 01:00, 05:00, …, 21:00 (Europe/Berlin)",
        unfurl_links: false,
        metadata: { event_type: "insight_subscription", event_payload: { group_id: GROUP } },
      },
    ]);
  });

  it("finds a group by a unique part of its name, case-insensitively", async () => {
    const { deps, subscriptions } = fakeCommandsDeps();
    const { ctx, replies } = dummyCommand("db SUPPORT");
    await subscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toContain("*Lumen DB Support*");
    expect((await subscriptions.forChannel("C0UNIT")).map((s) => s.groupId)).toEqual([GROUP]);
  });

  it("resuming with no options keeps the filters and the mode, and closes the incident", async () => {
    const { deps, subscriptions, ops, slack } = fakeCommandsDeps();
    await subscriptions.put({
      channelId: "C0UNIT",
      groupId: GROUP,
      groupName: "Lumen DB Support",
      communityId: "community-1",
      filters: { sentiments: ["negative", "mixed"], unanswered: true },
      delivery: { mode: "digest" },
      createdBy: "U0BOB",
      createdAt: "2025-01-01T00:00:00.000Z",
      paused: { code: "not_in_channel", at: "2025-02-01T00:00:00.000Z" },
    });
    const { ctx, replies } = dummyCommand(GROUP);
    await subscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toBe(
      "Resumed: this channel follows *Lumen DB Support* (`group-support-01`). In force: sentiment negative or mixed · unanswered questions only · daily digest at 09:00 (Europe/Berlin).",
    );
    const sub = await subscriptions.get("C0UNIT", GROUP);
    expect(sub?.paused).toBeUndefined();
    expect(sub?.filters).toEqual({ sentiments: ["negative", "mixed"], unanswered: true });
    expect(sub?.delivery).toEqual({ mode: "digest" });
    expect(sub?.createdAt).toBe("2025-01-01T00:00:00.000Z");
    expect(sub?.createdBy).toBe("U0BOB");
    expect(ops.resolved).toEqual([channelIncident("C0UNIT", "not_in_channel")]);
    expect(slack.posts[0]?.text).toContain(
      "<@U0ALICE> resumed this channel's subscription to *Lumen DB Support*",
    );
  });

  it("again with one option changes only that; again with nothing changes nothing and posts nothing", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps();
    await subscribeCommand(deps).run(dummyCommand(`${GROUP} --sentiment negative --mode digest`).ctx);
    const updated = dummyCommand(`${GROUP} --exclude-keywords giveaway`);
    await subscribeCommand(deps).run(updated.ctx);
    expect(updated.replies[0]?.text).toMatch(/^Updated: /);
    expect(await subscriptions.get("C0UNIT", GROUP)).toMatchObject({
      filters: { sentiments: ["negative"], excludeKeywords: ["giveaway"] },
      delivery: { mode: "digest" },
    });
    const same = dummyCommand(GROUP);
    await subscribeCommand(deps).run(same.ctx);
    expect(same.replies[0]?.text).toContain("already follows *Lumen DB Support*");
    expect(same.replies[0]?.text).toContain("nothing changed");
    const cleared = dummyCommand(`${GROUP} --all`);
    await subscribeCommand(deps).run(cleared.ctx);
    expect(cleared.replies[0]?.text).toContain(
      "In force: all threads · daily digest at 09:00 (Europe/Berlin).",
    );
    expect(slack.posts).toHaveLength(1);
  });

  it("not in a public channel: joins it and posts; a private one stays paused with how to invite", async () => {
    const pub = fakeCommandsDeps();
    pub.slack.failNext = slackError("chat.postMessage", "not_in_channel");
    const a = dummyCommand(GROUP, { channelId: "C0PUBLIC" });
    await subscribeCommand(pub.deps).run(a.ctx);
    expect(pub.slack.calls).toEqual([{ method: "conversations.join", args: { channel: "C0PUBLIC" } }]);
    expect(pub.slack.posts).toHaveLength(1);
    expect((await pub.subscriptions.get("C0PUBLIC", GROUP))?.paused).toBeUndefined();
    expect(a.replies[0]?.text).not.toContain("/invite");

    const priv = fakeCommandsDeps();
    priv.slack.failNext = slackError("chat.postMessage", "channel_not_found");
    const b = dummyCommand(GROUP, { channelId: "G0PRIVATE" });
    await subscribeCommand(priv.deps).run(b.ctx);
    expect(priv.slack.calls).toEqual([]);
    expect(b.replies[0]?.text).toContain("Invite it with `/invite @Insight Relay`");
    expect((await priv.subscriptions.get("G0PRIVATE", GROUP))?.paused?.code).toBe("not_in_channel");
  });

  it("a join Slack refuses says how to invite", async () => {
    const { deps, slack, subscriptions } = fakeCommandsDeps();
    slack.failNext = slackError("chat.postMessage", "not_in_channel");
    slack.failMethod.set("conversations.join", slackError("conversations.join", "missing_scope"));
    const { ctx, replies } = dummyCommand(GROUP, { channelId: "C0LOCKED" });
    await subscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toContain("/invite @Insight Relay");
    expect((await subscriptions.get("C0LOCKED", GROUP))?.paused?.code).toBe("not_in_channel");
  });

  it("an unknown group and bad options are refused without storing anything; the reply says what was understood", async () => {
    const { deps, subscriptions } = fakeCommandsDeps();
    const unknown = dummyCommand("no-such-group-here");
    await subscribeCommand(deps).run(unknown.ctx);
    expect(unknown.replies[0]?.text).toContain('No chat group named "no-such-group-here"');
    const bad = dummyCommand(`${GROUP} --sentiment negative --min-messages lots`);
    await subscribeCommand(deps).run(bad.ctx);
    expect(bad.replies[0]?.text).toBe(
      [
        'I could not read that: --min-messages: A whole number from 1 to 10,000, like 5 (you typed "lots").',
        'Understood so far: group "group-support-01" · sentiment negative.',
        "Example: `/insight subscribe Lumen DB Support --sentiment negative,mixed --mode digest` (options: see `/insight help`).",
      ].join("\n"),
    );
    expect(subscriptions.rows.size).toBe(0);
  });

  it("the public line says when the digest comes, in the channel's zone (the issue's example)", async () => {
    const { deps, slack } = fakeCommandsDeps({ timeZoneOf: async () => "America/New_York" });
    await subscribeCommand(deps).run(dummyCommand(`${GROUP} --sentiment negative,mixed --mode digest`).ctx);
    expect(slack.posts[0]?.text).toBe(
      "<@U0ALICE> subscribed this channel to *Lumen DB Support* — sentiment negative or mixed · daily digest at 09:00 (America/New_York)",
    );
  });

  it("a new subscription or a changed one brings the channel's digest in line; an unchanged one does not", async () => {
    const { deps, synced } = fakeCommandsDeps();
    await subscribeCommand(deps).run(dummyCommand(`${GROUP} --mode digest`).ctx);
    expect(synced).toEqual([`C0UNIT ${GROUP}`]);
    await subscribeCommand(deps).run(dummyCommand(GROUP).ctx);
    expect(synced).toHaveLength(1);
    await subscribeCommand(deps).run(dummyCommand(`${GROUP} --mode realtime`).ctx);
    expect(synced).toEqual([`C0UNIT ${GROUP}`, `C0UNIT ${GROUP}`]);
  });
});

describe("unsubscribe (unit, fake deps)", () => {
  it("removes the subscription, drops its digest, and says that the group's alerts stay", async () => {
    const { deps, subscriptions, synced, alerts } = fakeCommandsDeps();
    await subscribeCommand(deps).run(dummyCommand(`${GROUP} --mode digest`).ctx);
    alerts.push({
      groupId: GROUP,
      groupName: "Lumen DB Support",
      negativeSpike: true,
      volumeSpike: false,
      setBy: "U0ALICE",
      setAt: FIXED_NOW.toISOString(),
    });
    const { ctx, replies } = dummyCommand("Lumen DB Support");
    await unsubscribeCommand(deps).run(ctx);
    expect(await subscriptions.get("C0UNIT", GROUP)).toBeUndefined();
    expect(synced.at(-1)).toBe(`C0UNIT ${GROUP}`);
    expect(replies[0]?.text).toBe(
      "Unsubscribed: this channel no longer follows *Lumen DB Support* (`group-support-01`).\nIts alerts stay on here; `/insight alerts off group-support-01` stops them.",
    );
  });

  it("without alerts for the group, says only that it stopped", async () => {
    const { deps } = fakeCommandsDeps();
    await subscribeCommand(deps).run(dummyCommand(GROUP).ctx);
    const { ctx, replies } = dummyCommand(GROUP);
    await unsubscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toBe(
      "Unsubscribed: this channel no longer follows *Lumen DB Support* (`group-support-01`).",
    );
  });
});
