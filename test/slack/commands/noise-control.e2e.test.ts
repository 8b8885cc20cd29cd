import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { digestSchedulerId } from "../../../src/digest/schedules.js";
import { entryVersion, type PendingEntry } from "../../../src/domain/digest-batch.js";
import { SETTINGS_FIELDS as F } from "../../../src/slack/render/settings-modal.js";
import { SETTINGS_ACTIONS, SETTINGS_MODAL_CALLBACK } from "../../../src/slack/settings-ids.js";
import { startHarness, type Harness } from "../../helpers/app-harness.js";
import { ask, button, click, shown } from "./helpers.js";

const SUPPORT = SEED.groups.support;
let seq = 0;
const freshChannel = () => `C0NOISE${String(++seq).padStart(3, "0")}`;

/** A view_submission payload shaped like Slack's, for the settings modal. */
function viewSubmission(o: {
  user: string;
  privateMetadata: string;
  values: Record<string, Record<string, unknown>>;
}): Record<string, unknown> {
  return {
    type: "view_submission",
    team: { id: "T0STANDIN", domain: "insight-relay-test" },
    user: { id: o.user, username: "community.manager", name: "community.manager", team_id: "T0STANDIN" },
    api_app_id: "A0STANDIN",
    token: "legacy-verification-token-unused",
    trigger_id: "7012345678901.1234567890123.0123456789abcdef0123456789abcdef",
    view: {
      id: "V0SETTINGS",
      team_id: "T0STANDIN",
      type: "modal",
      callback_id: SETTINGS_MODAL_CALLBACK,
      private_metadata: o.privateMetadata,
      blocks: [],
      state: { values: Object.fromEntries(Object.entries(o.values).map(([k, v]) => [k, { value: v }])) },
      hash: "1732190000.abc",
      title: { type: "plain_text", text: "Subscription settings" },
      app_id: "A0STANDIN",
      bot_id: "B0STANDIN",
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

const sel = (v: string) => ({ type: "static_select", selected_option: { value: v } });
const radio = (v: string) => ({ type: "radio_buttons", selected_option: { value: v } });
const multi = (...v: string[]) => ({
  type: "multi_static_select",
  selected_options: v.map((value) => ({ value })),
});
const text = (v: string) => ({ type: "plain_text_input", value: v });

/** A thread waiting in a channel's digest, as routing would leave it. */
const pendingThread = (groupId: string, threadId: string): PendingEntry => ({
  digest: {
    threadId,
    groupId,
    groupName: "Lumen DB Support",
    communityId: "c1",
    title: "Replication lag after upgrade",
    summary: undefined,
    sentiment: "negative",
    keywords: [],
    messageCount: 3,
    participantCount: 2,
    isQuestionLed: true,
    questionResponseStatus: "unanswered",
    firstMessageDate: undefined,
    lastMessageDate: undefined,
    enrichedAt: new Date().toISOString(),
    action: "created",
  },
  version: entryVersion(Date.now(), true),
  isNew: true,
  firstSeenMs: Date.now(),
});

describe("noise control commands, end to end (signed requests, real Redis, emulator, stand-in Slack)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
  });
  afterAll(async () => {
    await h?.stop();
  });
  const say = (t: string, channel: string, user = "U0ALICE") => ask(h, t, { channel, user });

  it("subscribe with options: stored, the reply says what is in force, one public line in the channel", async () => {
    const channel = freshChannel();
    const r = await say(
      `subscribe ${SUPPORT} --sentiment negative,mixed --exclude-keywords giveaway --min-participants 2 --every 4h --format compact`,
      channel,
    );
    expect(r.text).toBe(
      `Subscribed: this channel follows *Lumen DB Support* (\`${SUPPORT}\`). In force: sentiment negative or mixed · ≥ 2 participants · never mentioning giveaway · digest every 4 hours, at 01:00, 05:00, …, 21:00 (UTC).`,
    );
    expect(await h.workspace.subscriptions.get(channel, SUPPORT)).toMatchObject({
      filters: { sentiments: ["negative", "mixed"], excludeKeywords: ["giveaway"], minParticipants: 2 },
      delivery: { mode: "digest", every: "4h", format: "compact" },
    });
    const posted = await h.slack.waitFor(() => h.slack.messages(channel)[0]);
    expect(posted.text).toBe(
      "<@U0ALICE> subscribed this channel to *Lumen DB Support* — sentiment negative or mixed · ≥ 2 participants · never mentioning giveaway · digest every 4 hours, at 01:00, 05:00, …, 21:00 (UTC)",
    );
    expect(h.slack.messages(channel)).toHaveLength(1);
  });

  it("resume keeps the filters and the mode (issue 11: the channel never silently becomes a firehose)", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT} --sentiment negative,mixed --unanswered --mode digest`, channel);
    await h.workspace.subscriptions.pauseChannel(channel, "not_in_channel", new Date());
    const r = await say(`subscribe ${SUPPORT}`, channel);
    expect(r.text).toMatch(/^Resumed: /);
    expect(r.text).toContain(
      "In force: sentiment negative or mixed · unanswered questions only · daily digest at 09:00 (UTC).",
    );
    const sub = await h.workspace.subscriptions.get(channel, SUPPORT);
    expect(sub?.paused).toBeUndefined();
    expect(sub?.filters).toEqual({ sentiments: ["negative", "mixed"], unanswered: true });
    expect(sub?.delivery).toEqual({ mode: "digest" });
    const list = await say("list", channel);
    expect(shown(list)).toContain("Filters: sentiment negative or mixed · unanswered questions only");
    expect(shown(list)).not.toContain("all threads");
  });

  it("the app joins a public channel it is not in; bad options say what was understood", async () => {
    const channel = freshChannel();
    h.slack.fail.error("chat.postMessage", "not_in_channel", { channel });
    const r = await say(`subscribe ${SUPPORT}`, channel);
    expect(r.text).not.toContain("/invite");
    expect(h.slack.calls.some((c) => c.method === "conversations.join" && c.args.channel === channel)).toBe(
      true,
    );
    expect(h.slack.messages(channel)).toHaveLength(1);
    const bad = await say(`subscribe ${SUPPORT} --mode hourly`, channel);
    expect(bad.text).toContain("I could not read that: --mode is one of realtime, digest, summary");
    expect(bad.text).toContain("Example: `/insight subscribe");
  });

  it("settings: the Settings button opens the modal filled in; a signed view_submission gets errors per field, then saves", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT} --sentiment negative`, channel);
    const list = await say("list", channel);
    const settings = button(list.blocks, SETTINGS_ACTIONS.open);
    const before = h.slack.views.opened.length;
    const res = await click(h, settings, { channel });
    expect(res.status).toBe(200);
    const opened = await h.slack.waitFor(() => h.slack.views.opened[before]);
    const view = opened.args.view as { callback_id: string; private_metadata: string; blocks: unknown[] };
    expect(view.callback_id).toBe(SETTINGS_MODAL_CALLBACK);
    expect(JSON.stringify(view.blocks)).toContain(
      '"initial_options":[{"text":{"type":"plain_text","text":"Negative"},"value":"negative"}]',
    );

    const values = {
      [F.mode]: sel("digest"),
      [F.every]: sel("8h"),
      [F.format]: radio("compact"),
      [F.replies]: radio("off"),
      [F.sentiments]: multi("negative"),
      [F.excludeSentiments]: multi("negative"),
      [F.questions]: radio("questions"),
      [F.keywords]: text("refund"),
      [F.excludeKeywords]: text("giveaway"),
      [F.minMessages]: text("lots"),
      [F.minParticipants]: text(""),
    };
    const wrong = await h.interact(
      viewSubmission({ user: "U0ALICE", privateMetadata: view.private_metadata, values }),
    );
    expect(wrong.status).toBe(200);
    expect(JSON.parse(wrong.body)).toEqual({
      response_action: "errors",
      errors: {
        [F.excludeSentiments]: "negative cannot be both wanted and excluded: remove it from one of the two.",
        [F.minMessages]: 'A whole number from 1 to 10,000, like 5 (you typed "lots").',
      },
    });
    // Nothing saved by a refused form.
    expect((await h.workspace.subscriptions.get(channel, SUPPORT))?.filters).toEqual({
      sentiments: ["negative"],
    });

    const ok = await h.interact(
      viewSubmission({
        user: "U0ALICE",
        privateMetadata: view.private_metadata,
        values: { ...values, [F.excludeSentiments]: multi("positive"), [F.minMessages]: text("4") },
      }),
    );
    expect(ok.status).toBe(200);
    expect(ok.body).toBe("");
    expect(await h.workspace.subscriptions.get(channel, SUPPORT)).toMatchObject({
      filters: {
        sentiments: ["negative"],
        excludeSentiments: ["positive"],
        questions: true,
        keywords: ["refund"],
        excludeKeywords: ["giveaway"],
        minMessages: 4,
      },
      delivery: { mode: "digest", every: "8h", format: "compact", replies: false },
    });
    const confirmation = await h.slack.waitFor(() =>
      h.slack.calls.find((c) => c.method === "chat.postEphemeral" && c.args.channel === channel),
    );
    expect(confirmation.args.user).toBe("U0ALICE");
    expect(String(confirmation.args.text)).toContain(
      "In force: sentiment negative · never positive · questions only · ≥ 4 messages · keyword refund · never mentioning giveaway · digest every 8 hours, at 01:00, 09:00 and 17:00 (UTC).",
    );
  });

  it("the public line says the digest's hour in the channel's zone (its weekly schedule's)", async () => {
    const channel = freshChannel();
    await say("weekly on monday 09:00 Europe/Berlin", channel);
    await say(`subscribe ${SUPPORT} --sentiment negative,mixed --mode digest`, channel);
    const posted = await h.slack.waitFor(() =>
      h.slack.messages(channel).find((m) => String(m.text).includes("subscribed this channel")),
    );
    expect(posted.text).toBe(
      "<@U0ALICE> subscribed this channel to *Lumen DB Support* — sentiment negative or mixed · daily digest at 09:00 (Europe/Berlin)",
    );
    const list = await say("list", channel);
    expect(shown(list)).toContain("Delivery: daily digest at 09:00 (Europe/Berlin)");
  });

  it("unsubscribe drops the group's pending digest and the channel's period schedule", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT} --every 4h`, channel);
    const scheduler = digestSchedulerId(channel, "4h");
    // Subscribing sets the period up at once.
    expect(await h.services.queues.digest.getJobScheduler(scheduler)).toMatchObject({ tz: "UTC" });
    await h.workspace.digest.pending.add(channel, pendingThread(SUPPORT, "thread-left-behind"));
    expect(await h.workspace.digest.pending.count(channel)).toBe(1);

    const r = await say(`unsubscribe ${SUPPORT}`, channel);
    expect(r.text).toMatch(/^Unsubscribed: this channel no longer follows \*Lumen DB Support\*/);
    expect(await h.workspace.digest.pending.count(channel)).toBe(0);
    expect(await h.services.queues.digest.getJobScheduler(scheduler)).toBeUndefined();
  });

  it("list shows each group's alerts in the words of the alerts reply; unsubscribe says they stay", async () => {
    const channel = freshChannel();
    await say(`subscribe ${SUPPORT}`, channel);
    const set = await say(`alerts ${SUPPORT} --unanswered-after 6h --negative-spike`, channel);
    const bullets = [
      "• a thread that starts with a question, still unanswered 6 hours after its first message",
      "• a negative spike: at least 5 negative threads in 24 hours and a share 15 points over the usual (the group's last 28 days)",
    ];
    expect(set.text).toContain(bullets.join("\n"));
    const list = await say("list", channel);
    expect(shown(list)).toContain(["Filters: all threads", "Alerts:", ...bullets].join("\n"));
    const gone = await say(`unsubscribe ${SUPPORT}`, channel);
    expect(gone.text).toContain(`Its alerts stay on here; \`/insight alerts off ${SUPPORT}\` stops them.`);
    const after = await say("list", channel);
    expect(shown(after)).toContain("This channel follows no chat group, but has alerts:");
    expect(shown(after)).toContain(["Not followed here, alerts only.", "Alerts:", ...bullets].join("\n"));
  });

  it("settings refuses people outside ADMIN_USER_IDS, in the modal too", async () => {
    const admin = await startHarness({ registerWebhook: false, env: { ADMIN_USER_IDS: "U0ADMIN" } });
    try {
      const channel = freshChannel();
      await ask(admin, `subscribe ${SUPPORT}`, { channel, user: "U0ADMIN" });
      const r = await admin.interact(
        viewSubmission({
          user: "U0BOB",
          privateMetadata: JSON.stringify({ c: channel, g: SUPPORT }),
          values: { [F.mode]: sel("summary") },
        }),
      );
      expect(JSON.parse(r.body).response_action).toBe("errors");
      expect((await admin.workspace.subscriptions.get(channel, SUPPORT))?.delivery).toBeUndefined();
    } finally {
      await admin.stop();
    }
  });

  it("groups: Subscribe here subscribes the channel the listing was asked in and announces it", async () => {
    const channel = freshChannel();
    const groups = await say("groups", channel);
    expect(shown(groups)).not.toMatch(/<group>/);
    const b = button(groups.blocks, SETTINGS_ACTIONS.subscribeHere);
    const target = JSON.parse(b.value) as { g: string; n: string };
    const res = await click(h, b, { channel, user: "U0CAROL" });
    expect(res.status).toBe(200);
    const reply = await res.reply();
    expect(reply.text).toMatch(/^Subscribed: this channel follows \*/);
    const sub = await h.workspace.subscriptions.get(channel, target.g);
    expect(sub).toMatchObject({ createdBy: "U0CAROL", filters: {} });
    const posted = await h.slack.waitFor(() => h.slack.messages(channel)[0]);
    expect(posted.text).toContain("<@U0CAROL> subscribed this channel to *");
    expect(posted.text).toContain("— all threads · a card per thread");
  });

  it("threads: ranges typed as words or short forms, and the filters of subscribe", async () => {
    const channel = freshChannel();
    for (const range of ["last 30 days", "30d", "last30Days"]) {
      const r = await say(`threads ${range} ${SUPPORT}`, channel);
      expect(shown(r), range).toContain("— the last 30 days");
      expect(shown(r)).not.toContain("No chat group named");
    }
    const all = await say(`threads all ${SUPPORT}`, channel);
    expect(shown(all)).toContain("— all time");
    const negative = await say(
      `threads all ${SUPPORT} --sentiment negative --exclude-sentiment negative`,
      channel,
    );
    // Nothing could ever match: refused as the settings form refuses it, in the same words.
    expect(negative.text).toBe(
      "I could not read that: negative cannot be both wanted and excluded: remove it from one of the two.\nUnderstood so far: sentiment negative · never negative.\nExample: `/insight threads 30d Lumen DB Support --sentiment negative --unanswered`",
    );
    const bad = await say(`threads 14d ${SUPPORT}`, channel);
    expect(bad.text).toContain("`14d` is not a range I know");
  });

  it("help escapes <group> and lists every subscribe option", async () => {
    const r = await say("help", freshChannel());
    expect(r.text).not.toMatch(/<group>|<text>/);
    expect(r.text).toContain("/insight subscribe &lt;group&gt; [options]");
    for (const o of [
      "--exclude-sentiment",
      "--exclude-keywords",
      "--min-participants",
      "--mode",
      "--every",
      "--format",
      "--replies",
      "--all",
    ]) {
      expect(r.text).toContain(o);
    }
    expect(r.text).toContain("/insight settings [group]");
  });
});
