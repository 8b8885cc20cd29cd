import { describe, expect, it } from "vitest";
import { openSettingsModal, settingsModeAction } from "../../../src/slack/actions/settings-open.js";
import { readSettingsForm, type FormValues } from "../../../src/slack/actions/settings-submit.js";
import { settingsCommand } from "../../../src/slack/commands/settings.js";
import { listCommand } from "../../../src/slack/commands/list.js";
import { describeAlerts } from "../../../src/slack/render/alert-settings.js";
import { renderSettingsModal, SETTINGS_FIELDS as F } from "../../../src/slack/render/settings-modal.js";
import { SETTINGS_ACTIONS, SETTINGS_MODAL_CALLBACK } from "../../../src/slack/settings-ids.js";
import type { Subscription } from "../../../src/store/subscriptions.js";
import { deliveryOf } from "../../../src/domain/subscription.js";
import { dummyCommand, fakeCommandsDeps } from "../../helpers/fakes.js";
import { buttons } from "../commands/helpers.js";
import { allTexts } from "../render/walk.js";

const sub = (over: Partial<Subscription> = {}): Subscription => ({
  channelId: "C0UNIT",
  groupId: "group-support-01",
  groupName: "Lumen DB <Support>",
  communityId: "community-1",
  filters: {
    sentiments: ["negative", "mixed"],
    excludeKeywords: ["giveaway"],
    unanswered: true,
    minMessages: 3,
  },
  delivery: { mode: "digest", every: "4h", format: "compact" },
  createdBy: "U0ALICE",
  createdAt: "2025-01-01T00:00:00.000Z",
  ...over,
});

type Block = { block_id?: string; element?: Record<string, unknown> };
const input = (view: Record<string, unknown>, id: string) =>
  (view.blocks as Block[]).find((b) => b.block_id === id)?.element ?? {};

/** The values Slack would send back for a modal as rendered (initial values kept). */
function valuesOf(view: Record<string, unknown>): FormValues {
  const out: FormValues = {};
  for (const b of view.blocks as Block[]) {
    if (!b.block_id || !b.element) continue;
    const e = b.element as {
      initial_option?: { value: string };
      initial_options?: { value: string }[];
      initial_value?: string;
    };
    out[b.block_id] = {
      value: {
        selected_option: e.initial_option ?? null,
        selected_options: e.initial_options ?? [],
        value: e.initial_value ?? null,
      },
    };
  }
  return out;
}

describe("settings modal (pure)", () => {
  it("names each digest period with the times it posts at, and the channel's zone", () => {
    const view = renderSettingsModal(sub(), { timeZone: "Asia/Tokyo" });
    const every = input(view, F.every) as { options?: { text: { text: string } }[] };
    expect(every.options?.map((o) => o.text.text)).toEqual([
      "Every hour, on the hour",
      "Every 2 hours, at 01:00, 03:00, …, 23:00",
      "Every 4 hours, at 01:00, 05:00, …, 21:00",
      "Every 8 hours, at 01:00, 09:00 and 17:00",
      "Every 12 hours, at 09:00 and 21:00",
      "Once a day, at 09:00",
    ]);
    expect(JSON.stringify(view.blocks)).toContain("Times in the channel's time zone (Asia/Tokyo).");
  });

  it("shows only the delivery settings of its mode, and redraws on a mode change", () => {
    const ids = (v: Record<string, unknown>) => (v.blocks as Block[]).map((b) => b.block_id).filter(Boolean);
    // Digest mode: the period, no card format or replies (digests post no cards).
    expect(ids(renderSettingsModal(sub()))).toContain(F.every);
    expect(ids(renderSettingsModal(sub()))).not.toContain(F.format);
    expect(ids(renderSettingsModal(sub()))).not.toContain(F.replies);
    // Realtime: card format and replies, no period.
    const realtime = ids(renderSettingsModal(sub({ delivery: { mode: "realtime" } })));
    expect(realtime).toEqual(expect.arrayContaining([F.format, F.replies]));
    expect(realtime).not.toContain(F.every);
    // Summary only: neither.
    const summary = ids(renderSettingsModal(sub(), { mode: "summary" }));
    for (const f of [F.every, F.format, F.replies]) expect(summary).not.toContain(f);
    // The mode select redraws the modal when changed.
    expect((renderSettingsModal(sub()).blocks as Record<string, unknown>[])[2]).toMatchObject({
      block_id: F.mode,
      dispatch_action: true,
    });
  });

  it("a setting the modal did not show keeps its value when saved", () => {
    const s = sub({ delivery: { mode: "realtime", every: "4h", format: "compact", replies: true } });
    const v = valuesOf(renderSettingsModal(s, { mode: "digest" }));
    // Switched to digest: the period is asked, the card settings stay as they were.
    expect(readSettingsForm(v, { mode: "realtime", every: "4h", format: "compact", replies: true })).toEqual({
      ok: true,
      filters: s.filters,
      delivery: { mode: "digest", every: "4h", format: "compact", replies: true },
    });
  });

  it("is filled in with what is in force", () => {
    const view = renderSettingsModal(sub());
    expect(view).toMatchObject({ type: "modal", callback_id: SETTINGS_MODAL_CALLBACK });
    expect(JSON.parse(String(view.private_metadata))).toEqual({ c: "C0UNIT", g: "group-support-01" });
    expect(input(view, F.mode)).toMatchObject({ initial_option: { value: "digest" } });
    expect(input(view, F.every)).toMatchObject({ initial_option: { value: "4h" } });
    const cards = renderSettingsModal(sub({ delivery: { mode: "realtime", format: "compact" } }));
    expect(input(cards, F.format)).toMatchObject({ initial_option: { value: "compact" } });
    expect(input(cards, F.replies)).toMatchObject({ initial_option: { value: "off" } });
    expect(input(view, F.sentiments)).toMatchObject({
      initial_options: [{ value: "negative" }, { value: "mixed" }],
    });
    expect(input(view, F.questions)).toMatchObject({ initial_option: { value: "unanswered" } });
    expect(input(view, F.excludeKeywords)).toMatchObject({ initial_value: "giveaway" });
    expect(input(view, F.minMessages)).toMatchObject({ initial_value: "3" });
    expect(input(view, F.minParticipants)).not.toHaveProperty("initial_value");
    // The group name is plain text, shown as typed.
    expect(allTexts(view.blocks).join("\n")).toContain(
      "What this channel receives from Lumen DB <\u200dSupport>",
    );
  });

  it("submitting it unchanged gives back the same settings", () => {
    const s = sub();
    expect(readSettingsForm(valuesOf(renderSettingsModal(s)), deliveryOf(s))).toEqual({
      ok: true,
      filters: s.filters,
      delivery: { mode: "digest", every: "4h", format: "compact", replies: false },
    });
  });

  it("answers one sentence per wrong field", () => {
    const v = valuesOf(renderSettingsModal(sub()));
    v[F.minMessages] = { value: { value: "five" } };
    v[F.minParticipants] = { value: { value: "0" } };
    v[F.excludeSentiments] = { value: { selected_options: [{ value: "negative" }] } };
    v[F.keywords] = { value: { value: Array.from({ length: 21 }, (_, i) => `k${i}`).join(",") } };
    const r = readSettingsForm(v);
    expect(r).toEqual({
      ok: false,
      errors: {
        [F.minMessages]: 'A whole number from 1 to 10,000, like 5 (you typed "five").',
        [F.minParticipants]: 'A whole number from 1 to 10,000, like 5 (you typed "0").',
        [F.excludeSentiments]: "negative cannot be both wanted and excluded: remove it from one of the two.",
        [F.keywords]: "Up to 20 keywords, separated by commas.",
      },
    });
  });

  it("empty optional fields clear those filters", () => {
    const v = valuesOf(renderSettingsModal(sub()));
    for (const id of [F.sentiments, F.excludeKeywords, F.minMessages]) v[id] = { value: {} };
    v[F.questions] = { value: { selected_option: { value: "all" } } };
    expect(readSettingsForm(v)).toMatchObject({ ok: true, filters: {} });
  });
});

describe("settings modal: a mode change redraws it", () => {
  it("chosen realtime: views.update with card format and replies, and no period", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps();
    await subscriptions.put(sub());
    const listener = settingsModeAction(deps);
    const args = {
      ack: async () => undefined,
      action: {
        type: "static_select",
        action_id: "value",
        block_id: F.mode,
        selected_option: { value: "realtime" },
      },
      body: {
        view: {
          id: "V0MODAL",
          hash: "h1",
          private_metadata: JSON.stringify({ c: "C0UNIT", g: "group-support-01" }),
        },
      },
    };
    await (listener as unknown as (a: typeof args) => Promise<void>)(args);
    expect(slack.views).toHaveLength(1);
    const view = slack.views[0]?.view as Record<string, unknown>;
    expect(slack.views[0]?.kind).toBe("update");
    const ids = (view.blocks as Block[]).map((b) => b.block_id);
    expect(ids).toEqual(expect.arrayContaining([F.format, F.replies]));
    expect(ids).not.toContain(F.every);
    expect(input(view, F.mode)).toMatchObject({ initial_option: { value: "realtime" } });
  });
});

describe("settings command and list (fake deps)", () => {
  it("opens the modal of the only subscription with the trigger_id", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps();
    await subscriptions.put(sub());
    const { ctx, replies } = dummyCommand("");
    await settingsCommand(deps).run(ctx);
    expect(replies).toEqual([]);
    expect(slack.views).toHaveLength(1);
    expect(slack.views[0]?.view).toMatchObject({ callback_id: SETTINGS_MODAL_CALLBACK });
  });

  it("with several and none named, lists them with a Settings button each", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps();
    await subscriptions.put(sub());
    await subscriptions.put(sub({ groupId: "group-other-02", groupName: "Other" }));
    const { ctx, replies } = dummyCommand("");
    await settingsCommand(deps).run(ctx);
    expect(slack.views).toEqual([]);
    expect(buttons(replies[0]?.blocks).map((b) => b.action_id)).toEqual([
      SETTINGS_ACTIONS.open,
      SETTINGS_ACTIONS.open,
    ]);
    const named = dummyCommand("other");
    await settingsCommand(deps).run(named.ctx);
    expect(slack.views).toHaveLength(1);
  });

  it("refuses people outside ADMIN_USER_IDS at the button too", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps({ adminUserIds: ["U0ADMIN"] });
    await subscriptions.put(sub());
    const r = await openSettingsModal(deps, {
      triggerId: "t",
      channelId: "C0UNIT",
      groupId: "group-support-01",
      userId: "U0BOB",
    });
    expect(r).toBe("refused");
    expect(slack.views).toEqual([]);
  });

  it("list shows delivery (with its times in the channel's zone), filters, alerts and paused per subscription, each with a Settings button", async () => {
    const { deps, subscriptions } = fakeCommandsDeps();
    await subscriptions.put(sub());
    await subscriptions.put(
      sub({
        groupId: "g2",
        groupName: "Rides",
        filters: {},
        delivery: undefined,
        paused: { code: "is_archived", at: "x" },
      }),
    );
    const { ctx, replies } = dummyCommand("");
    await listCommand(deps).run(ctx);
    const t = allTexts(replies[0]?.blocks ?? []).join("\n");
    expect(t).toContain("This channel follows 2 chat groups:");
    expect(t).toContain(
      "*Lumen DB &lt;Support&gt;* (`group-support-01`)\nDelivery: digest every 4 hours, at 01:00, 05:00, …, 21:00 (Europe/Berlin)\nFilters: sentiment negative or mixed · unanswered questions only · ≥ 3 messages · never mentioning giveaway\nAlerts: off",
    );
    expect(t).toContain(
      "*Rides* (`g2`)\nDelivery: a card per thread\nFilters: all threads\nAlerts: off\n:pause_button: paused: That channel is archived: unarchive it, or subscribe another channel.",
    );
    const b = buttons(replies[0]?.blocks);
    expect(b.map((x) => JSON.parse(x.value))).toEqual([
      { c: "C0UNIT", g: "group-support-01" },
      { c: "C0UNIT", g: "g2" },
    ]);
  });

  it("list shows each group's alerts in the words of the `alerts` reply, and groups with alerts only", async () => {
    const { deps, subscriptions, alerts } = fakeCommandsDeps();
    await subscriptions.put(sub({ delivery: { mode: "digest" }, filters: {} }));
    const base = { negativeSpike: false, volumeSpike: false, setBy: "U0ALICE", setAt: "x" };
    alerts.push(
      {
        ...base,
        groupId: "group-support-01",
        groupName: "Lumen DB <Support>",
        unansweredAfterHours: 4,
        negativeSpike: true,
      },
      { ...base, groupId: "g9", groupName: "Rides", volumeSpike: true },
    );
    const { ctx, replies } = dummyCommand("");
    await listCommand(deps).run(ctx);
    const t = allTexts(replies[0]?.blocks ?? []).join("\n");
    expect(t).toContain(
      [
        "*Lumen DB &lt;Support&gt;* (`group-support-01`)",
        "Delivery: daily digest at 09:00 (Europe/Berlin)",
        "Filters: all threads",
        "Alerts:",
        ...describeAlerts({ unansweredAfterHours: 4, negativeSpike: true, volumeSpike: false }),
      ].join("\n"),
    );
    expect(t).toContain(
      "• a thread that starts with a question, still unanswered 4 hours after its first message\n• a negative spike: at least 5 negative threads in 24 hours and a share 15 points over the usual (the group's last 28 days)",
    );
    expect(t).toContain(
      "*Rides* (`g9`)\nNot followed here, alerts only.\nAlerts:\n• a volume spike: at least 5 new threads in an hour and 3 times the usual hourly number",
    );
    // A Settings button for the subscription only: alerts have their own command.
    expect(buttons(replies[0]?.blocks)).toHaveLength(1);
    expect(replies[0]?.text).toBe(
      "This channel follows 1 chat group:\n• Lumen DB <Support>\n• Rides (alerts only)",
    );
  });

  it("list with alerts only still shows them", async () => {
    const { deps, alerts } = fakeCommandsDeps();
    alerts.push({
      groupId: "g9",
      groupName: "Rides",
      negativeSpike: true,
      volumeSpike: false,
      setBy: "U",
      setAt: "x",
    });
    const { ctx, replies } = dummyCommand("");
    await listCommand(deps).run(ctx);
    const t = allTexts(replies[0]?.blocks ?? []).join("\n");
    expect(t).toContain("This channel follows no chat group, but has alerts:");
    expect(t).toContain("*Rides* (`g9`)\nNot followed here, alerts only.\nAlerts:\n• a negative spike");
  });
});
