import { describe, expect, it } from "vitest";
import type { AlertSettings } from "../../../src/domain/alerts.js";
import { alertsCommand } from "../../../src/slack/commands/alerts.js";
import { matchGroup } from "../../../src/slack/commands/resolve-group.js";
import { settingsCommand } from "../../../src/slack/commands/settings.js";
import { subscribeCommand } from "../../../src/slack/commands/subscribe.js";
import { threadsCommand } from "../../../src/slack/commands/threads.js";
import { unsubscribeCommand } from "../../../src/slack/commands/unsubscribe.js";
import type { Subscription } from "../../../src/store/subscriptions.js";
import { dummyCommand, fakeCommandsDeps, FakeInsight } from "../../helpers/fakes.js";

/*
 * Rule 13, one grammar: every subcommand that names a group reads the name the same way, and
 * what the settings form refuses the command line refuses, in the same words.
 */

const SUPPORT = "group-support-01";
const CONTRIB = "group-contrib-02";
const twoGroups = () =>
  new FakeInsight(
    [{ _id: "community-1", name: "Lumen DB" }],
    [
      { id: SUPPORT, name: "Lumen DB Support", community: "community-1" },
      { id: CONTRIB, name: "Lumen DB Contributors", community: "community-1" },
    ],
  );
const following = (groupId: string, groupName: string, over: Partial<Subscription> = {}): Subscription => ({
  channelId: "C0UNIT",
  groupId,
  groupName,
  communityId: "community-1",
  filters: {},
  createdBy: "U0ALICE",
  createdAt: "2025-01-01T00:00:00.000Z",
  ...over,
});
const alertOf = (groupId: string, groupName: string): AlertSettings => ({
  groupId,
  groupName,
  negativeSpike: true,
  volumeSpike: false,
  setBy: "U0ALICE",
  setAt: "2025-01-01T00:00:00.000Z",
});

describe("matchGroup: id, name, or an unambiguous part of the name", () => {
  const groups = [
    { id: SUPPORT, name: "Lumen DB Support" },
    { id: CONTRIB, name: "Lumen DB Contributors" },
    { id: "g-rides", name: "Rides" },
  ];
  const m = (ref: string) =>
    matchGroup(
      groups,
      ref,
      (g) => g.id,
      (g) => g.name,
    );
  it.each([
    [SUPPORT, SUPPORT],
    ["lumen db support", SUPPORT],
    ["support", SUPPORT],
    ["CONTRIB", CONTRIB],
    ["rides", "g-rides"],
  ])("%j names %s", (ref, id) => {
    expect(m(ref)).toMatchObject({ kind: "one", item: { id } });
  });
  it("a part several names share lists them; nothing matching is none", () => {
    expect(m("lumen db")).toMatchObject({ kind: "several", items: [{ id: SUPPORT }, { id: CONTRIB }] });
    expect(m("saturday")).toEqual({ kind: "none" });
    expect(m("  ")).toEqual({ kind: "none" });
  });
});

describe("every subcommand that names a group resolves it as subscribe does", () => {
  it("`support` works for subscribe, unsubscribe, settings and alerts off alike", async () => {
    const { deps, subscriptions, alerts, slack } = fakeCommandsDeps({ insight: twoGroups() });
    const sub = dummyCommand("support");
    await subscribeCommand(deps).run(sub.ctx);
    expect(sub.replies[0]?.text).toMatch(/^Subscribed: this channel follows \*Lumen DB Support\*/);

    const settings = dummyCommand("support");
    await subscriptions.put(following(CONTRIB, "Lumen DB Contributors"));
    await settingsCommand(deps).run(settings.ctx);
    expect(settings.replies).toEqual([]);
    expect(slack.views).toHaveLength(1);

    alerts.push(alertOf(SUPPORT, "Lumen DB Support"));
    const alertsDeps = { ...deps, alerts: { ...deps.alerts, put: async () => {}, remove: async () => true } };
    const off = dummyCommand("off support");
    await alertsCommand(alertsDeps).run(off.ctx);
    expect(off.replies[0]?.text).toBe("Alerts off: no more alerts for *Lumen DB Support* in this channel.");

    const un = dummyCommand("support");
    await unsubscribeCommand(deps).run(un.ctx);
    expect(un.replies[0]?.text).toBe(
      `Unsubscribed: this channel no longer follows *Lumen DB Support* (\`${SUPPORT}\`).\nIts alerts stay on here; \`/insight alerts off ${SUPPORT}\` stops them.`,
    );
    expect(await subscriptions.get("C0UNIT", SUPPORT)).toBeUndefined();
  });

  it("a name several groups share gets the same list of choices everywhere", async () => {
    const { deps, subscriptions, alerts } = fakeCommandsDeps({ insight: twoGroups() });
    await subscriptions.put(following(SUPPORT, "Lumen DB Support"));
    await subscriptions.put(following(CONTRIB, "Lumen DB Contributors"));
    alerts.push(alertOf(SUPPORT, "Lumen DB Support"), alertOf(CONTRIB, "Lumen DB Contributors"));
    const choices = `"lumen db" matches several chat groups; name one by its id or full name:\n• Lumen DB Support (\`${SUPPORT}\`)\n• Lumen DB Contributors (\`${CONTRIB}\`)`;

    const sub = dummyCommand("lumen db --questions");
    await subscribeCommand(deps).run(sub.ctx);
    expect(sub.replies[0]?.text).toBe(choices);
    const un = dummyCommand("lumen db");
    await unsubscribeCommand(deps).run(un.ctx);
    expect(un.replies[0]?.text).toBe(choices);
    const alertsDeps = { ...deps, alerts: { ...deps.alerts, put: async () => {}, remove: async () => true } };
    const off = dummyCommand("off lumen db");
    await alertsCommand(alertsDeps).run(off.ctx);
    expect(off.replies[0]?.text).toBe(choices);
    const th = dummyCommand("lumen db");
    await threadsCommand(deps).run(th.ctx);
    expect(th.replies[0]?.text).toBe(choices);
    // Nothing was removed on the way.
    expect(await subscriptions.forChannel("C0UNIT")).toHaveLength(2);
  });

  it("a group the channel does not follow: what it follows, escaped", async () => {
    const { deps, subscriptions } = fakeCommandsDeps({ insight: twoGroups() });
    await subscriptions.put(following(CONTRIB, "Lumen DB <Contributors>"));
    const un = dummyCommand("Saturday Rides");
    await unsubscribeCommand(deps).run(un.ctx);
    expect(un.replies[0]?.text).toBe(
      `This channel does not follow "Saturday Rides". It follows:\n• Lumen DB &lt;Contributors&gt; (\`${CONTRIB}\`)`,
    );
  });
});

describe("what the settings form refuses, the command refuses in the same words, before announcing", () => {
  it("one sentiment both wanted and excluded", async () => {
    const { deps, subscriptions, slack, synced } = fakeCommandsDeps();
    const { ctx, replies } = dummyCommand(
      "Lumen DB Support --sentiment negative --exclude-sentiment negative",
    );
    await subscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toBe(
      [
        "I could not read that: negative cannot be both wanted and excluded: remove it from one of the two.",
        'Understood so far: group "Lumen DB Support" · sentiment negative · never negative.',
        "Example: `/insight subscribe Lumen DB Support --sentiment negative,mixed --mode digest` (options: see `/insight help`).",
      ].join("\n"),
    );
    expect(slack.posts).toEqual([]);
    expect(subscriptions.rows.size).toBe(0);
    expect(synced).toEqual([]);
  });

  it("a change that contradicts what the channel already has is refused; the subscription stays as it was", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps();
    await subscriptions.put(
      following(SUPPORT, "Lumen DB Support", { filters: { sentiments: ["negative"] } }),
    );
    const { ctx, replies } = dummyCommand(`${SUPPORT} --exclude-sentiment negative`);
    await subscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toBe(
      [
        "I could not read that: negative cannot be both wanted and excluded: remove it from one of the two.",
        'Understood so far: group "Lumen DB Support" · sentiment negative · never negative.',
        "Example: `/insight subscribe Lumen DB Support --sentiment negative,mixed --mode digest` (options: see `/insight help`).",
      ].join("\n"),
    );
    expect((await subscriptions.get("C0UNIT", SUPPORT))?.filters).toEqual({ sentiments: ["negative"] });
    expect(slack.posts).toEqual([]);
  });
});

describe("threads and alerts say what was understood", () => {
  it("`threads Lumen DB Support 2w`: the group was read, `2w` is not a range", async () => {
    const { deps } = fakeCommandsDeps();
    const { ctx, replies } = dummyCommand("Lumen DB Support 2w");
    await threadsCommand(deps).run(ctx);
    expect(replies[0]?.text).toBe(
      '`2w` is not a range I know. I read the group as "Lumen DB Support". Use `7d` (default), `30d`, `3m`, `6m`, `all`, or words such as `last 30 days`, for example `/insight threads 30d Lumen DB Support`.',
    );
  });

  it("the alerts usage shows no raw <group> (a control sequence in mrkdwn)", async () => {
    const { deps } = fakeCommandsDeps();
    const { ctx, replies } = dummyCommand("--negative-spike");
    await alertsCommand({
      ...deps,
      alerts: { ...deps.alerts, put: async () => {}, remove: async () => true },
    }).run(ctx);
    const text = replies[0]?.text ?? "";
    expect(text).toBe(
      "I could not set alerts from `--negative-spike`: name the chat group to watch.\nUsage: `/insight alerts &lt;group&gt; [--unanswered-after &lt;hours&gt;h] [--negative-spike] [--volume-spike]` or `/insight alerts off &lt;group&gt;`. Example: `/insight alerts support --unanswered-after 4h --negative-spike`",
    );
    expect(text).not.toMatch(/<(group|hours)>/);
  });
});
