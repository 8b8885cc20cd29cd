import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { encodeResumeState } from "../../../src/slack/button-values.js";
import type { Subscription } from "../../../src/store/subscriptions.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../../helpers/app-harness.js";
import { blockActionsPayload } from "../../helpers/slack.js";
import { allTexts, expectNoLiveTokens } from "../render/walk.js";
import { buttons, sendEvent } from "../commands/helpers.js";
import { SETTINGS_ACTIONS } from "../../../src/slack/settings-ids.js";
import { digest } from "../../fixtures/threads/build.js";

const ADMIN = "U0ADMIN";
const MEMBER = "U0MEMBER";

const paused = (channelId: string): Subscription => ({
  channelId,
  groupId: SEED.groups.rides,
  groupName: "Saturday Rides",
  communityId: undefined,
  filters: { sentiments: ["negative"] },
  createdBy: ADMIN,
  createdAt: new Date().toISOString(),
  paused: { code: "is_archived", at: new Date().toISOString() },
});

describe("App Home tab", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_USER_IDS: ADMIN } });
    // subscribe is admin-only here: set the state directly.
    await h.workspace.subscriptions.put({
      ...paused(TEST_CHANNEL),
      groupId: SEED.groups.support,
      groupName: "Lumen DB Support",
      paused: undefined,
      filters: {},
    });
    await h.workspace.subscriptions.put(paused("C0ARCHIVED"));
  });
  afterAll(async () => h?.stop());

  const homeOf = async (user: string, count: number) => {
    await h.slack.waitFor(
      () =>
        h.slack.calls.filter((c) => c.method === "views.publish" && c.ok && c.args.user_id === user).length >=
        count,
    );
    const view = h.slack.views.published.get(user) as { type: string; blocks: unknown[] };
    return { view, text: allTexts(view.blocks).join("\n") };
  };

  it("app_home_opened publishes subscriptions, health at a glance and quick help", async () => {
    const res = await sendEvent(h, {
      type: "app_home_opened",
      user: ADMIN,
      channel: "D0HOME",
      tab: "home",
      event_ts: "1.2",
    });
    expect(res.status).toBe(200);
    const { view, text } = await homeOf(ADMIN, 1);
    expect(view.type).toBe("home");
    expect(text).toContain("Health at a glance");
    expect(text).toMatch(/\*Insight API:\* reachable, key accepted/);
    expect(text).toContain("Subscriptions* — 2 in 2 channels");
    expect(text).toContain(`<#${TEST_CHANNEL}>`);
    expect(text).toContain("*Lumen DB Support*");
    expect(text).toContain("*Saturday Rides*");
    expect(text).toContain("sentiment negative");
    expect(text).toContain("Quick help");
    expect(text).toContain("`/insight threads [range] [group] [filters]`");
    expect(text).toContain("changed by the app's admins");
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    // Channel links are the app's own; nothing else may be live.
    expectNoLiveTokens(JSON.parse(JSON.stringify(view.blocks).replace(/<#C0[A-Z0-9]+>/g, "#channel")));
    // An admin sees a Resume button on the paused subscription.
    expect(buttons(view.blocks).map((b) => b.action_id)).toContain(ACTIONS.resume);
  });

  it("the Messages tab publishes nothing", async () => {
    const before = h.slack.calls.filter((c) => c.method === "views.publish").length;
    await sendEvent(h, {
      type: "app_home_opened",
      user: ADMIN,
      channel: "D0HOME",
      tab: "messages",
      event_ts: "1.3",
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(h.slack.calls.filter((c) => c.method === "views.publish").length).toBe(before);
  });

  const resumeClick = (user: string) => {
    const payload = blockActionsPayload({
      actionId: ACTIONS.resume,
      value: encodeResumeState({ c: "C0ARCHIVED", g: SEED.groups.rides }),
      userId: user,
    });
    delete payload.channel;
    payload.container = { type: "view", view_id: "V0HOME" };
    payload.view = { id: "V0HOME", type: "home" };
    return h.interact(payload);
  };

  it("a member sees no Resume button, and a Resume click from a member is refused", async () => {
    await sendEvent(h, {
      type: "app_home_opened",
      user: MEMBER,
      channel: "D0HOME2",
      tab: "home",
      event_ts: "1.4",
    });
    const { view, text } = await homeOf(MEMBER, 1);
    expect(buttons(view.blocks)).toHaveLength(0);
    expect(text).toContain("Only the app's admins can resume them");

    expect((await resumeClick(MEMBER)).status).toBe(200);
    const refused = await homeOf(MEMBER, 2);
    expect(refused.text).toContain("Only the app's admins can change subscriptions or schedules");
    expect((await h.workspace.subscriptions.get("C0ARCHIVED", SEED.groups.rides))?.paused).toBeDefined();
  });

  it("an admin's Resume click resumes the subscription and says so", async () => {
    const before = h.slack.calls.filter(
      (c) => c.method === "views.publish" && c.args.user_id === ADMIN,
    ).length;
    expect((await resumeClick(ADMIN)).status).toBe(200);
    const after = await homeOf(ADMIN, before + 1);
    expect(after.text).toContain("Resumed digests of *Saturday Rides* in <#C0ARCHIVED>");
    expect((await h.workspace.subscriptions.get("C0ARCHIVED", SEED.groups.rides))?.paused).toBeUndefined();
    const left = buttons(after.view.blocks).map((b) => b.action_id);
    expect(left).not.toContain(ACTIONS.resume);
    // What an admin keeps: the settings form of each subscription.
    expect(left.length).toBeGreaterThan(0);
    expect(new Set(left)).toEqual(new Set([SETTINGS_ACTIONS.open]));
  });
  it("Open lists five and says how many more; See all lists them all in a modal", async () => {
    // Eight cards posted in a channel, none handled: Home's Open shows five, says 3 more.
    for (let i = 0; i < 8; i++) {
      const threadId = `thr-open-${i}`;
      await h.workspace.refs.setIfNewer("C0OPEN", threadId, {
        ts: `1700000000.00000${i}`,
        enrichedAtMs: 1_000 + i,
        hasSentiment: true,
        groupId: SEED.groups.support,
        card: {
          digest: digest({ threadId, title: `Open thread ${i}`, groupName: "Lumen DB Support" }),
          change: [],
          noLongerMatches: false,
        },
      });
      const postedAt = new Date(Date.now() - (8 - i) * 60_000);
      await h.workspace.refs.noteChannel("C0OPEN", threadId, postedAt);
      await h.workspace.triage.noteCard(threadId, postedAt);
    }
    const before = h.slack.calls.filter(
      (c) => c.method === "views.publish" && c.args.user_id === ADMIN,
    ).length;
    await sendEvent(h, {
      type: "app_home_opened",
      user: ADMIN,
      channel: "D0HOME",
      tab: "home",
      event_ts: "1.5",
    });
    const { view, text } = await homeOf(ADMIN, before + 1);
    expect(text).toContain("…and 3 more open: press *See all* to list them.");
    expect(text).toContain("• *Open thread 7* — Lumen DB Support in <#C0OPEN>");
    expect(text).not.toContain("*Open thread 2*");
    const seeAll = buttons(view.blocks).find((b) => b.action_id === ACTIONS.homeOpenThreads);
    expect(seeAll?.text.text).toBe("See all");

    const opened = h.slack.views.opened.length;
    const payload = blockActionsPayload({ actionId: ACTIONS.homeOpenThreads, value: "open", userId: ADMIN });
    delete payload.channel;
    payload.container = { type: "view", view_id: "V0HOME" };
    expect((await h.interact(payload)).status).toBe(200);
    const call = await h.slack.waitFor(() => h.slack.views.opened[opened]);
    const modal = JSON.stringify(call.args.view);
    for (let i = 0; i < 8; i++) expect(modal).toContain(`*Open thread ${i}*`);
    expect(modal).toContain("8 open threads: posted, not marked handled. Newest first.");
  });
});
