import { describe, expect, it } from "vitest";
import type { Reminder } from "../../../src/domain/reminder.js";
import { renderHome } from "../../../src/slack/render/home.js";
import { reminderSetText, reminderText } from "../../../src/slack/render/reminder.js";
import {
  renderSearchLoading,
  renderSearchResultsModal,
  searchEntries,
  type SearchFormState,
} from "../../../src/slack/render/search-modal.js";
import { renderThreadDigest } from "../../../src/slack/render/thread-digest.js";
import { renderGatheredWatchDm, renderWatchDm } from "../../../src/slack/render/watch-dm.js";
import { renderWatchList, watchAddedText, watchLimitText } from "../../../src/slack/render/watch-list.js";
import { renderWatchModal } from "../../../src/slack/render/watch-modal.js";
import { digest, watch } from "../../helpers/personal-builders.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits } from "./walk.js";

const QUIET = { from: 22 * 60, to: 7 * 60 };
const DUE = Date.parse("2026-03-13T23:30:00Z");
const dateOf = (ms: number) => `<!date^${ms / 1000}^{date_short_pretty} at {time}|`;
const reminder: Reminder = {
  id: "r1",
  userId: "U0MAYA",
  channelId: "C0DIGESTS",
  cardTs: "1.000100",
  threadId: "thr_refund",
  groupId: "group-support-01",
  title: "Refund failed after the upgrade",
  dueAtMs: DUE,
  createdAtMs: 0,
};

describe("the watch DM", () => {
  it("is the thread's compact card (which names its group) with the card's buttons, under a line naming the watch", () => {
    const m = renderWatchDm({ digest: digest(), watch: watch("U0MAYA", "1") });
    expect(m.text).toBe("Your watch “refund failed”: Refund failed after the upgrade");
    const texts = allTexts(m.blocks);
    expect(texts[0]).toBe(":telescope: Matches your watch “refund failed”");
    expect(texts[1]).toBe(
      ":red_circle: *Refund failed after the upgrade* · Negative · :clock3: Awaiting answer · 6 messages, 3 participants · :busts_in_silhouette: Lumen DB Support",
    );
    const actions = m.blocks.at(-1) as { type: string; block_id: string; elements: { action_id: string }[] };
    expect(actions.type).toBe("actions");
    expect(actions.block_id).toBe('digest.card:{"g":"group-support-01","t":"thr_refund"}');
    expect(actions.elements.map((e) => e.action_id)).toEqual([
      "digest.view_messages",
      "digest.mark_handled",
      "digest.assign",
      "digest.follow",
      "digest.remind",
    ]);
    expectWithinLimits(m.blocks);
    expect(m.blocks).toMatchSnapshot();
  });

  it("says so when the thread left the person's watches, and escapes community text", () => {
    const hostile = digest({
      title: "<!channel> free <https://evil.example|refund>",
      groupName: "<@U0ADMIN>",
    });
    const m = renderWatchDm({ digest: hostile, watch: watch("U0MAYA", "1"), stillMatches: false });
    expect(allTexts(m.blocks)[0]).toBe(
      ":telescope: No longer matches your watch “refund failed”; kept up to date here.",
    );
    expect(allTexts(m.blocks)[1]).toContain(":busts_in_silhouette: &lt;@U0ADMIN&gt;");
    expectNoLiveTokens(m.blocks);
  });

  it("gathers a day's matches in one DM, newest first, each with its watch and Messages", () => {
    const m = renderGatheredWatchDm({
      reason: "daily",
      sinceMs: Date.parse("2026-03-13T08:00:00Z"),
      lines: [
        { digest: digest(), watchId: "1" },
        {
          digest: digest({
            threadId: "t2",
            title: "Second refund report",
            enrichedAt: "2026-03-13T13:00:00.000Z",
          }),
          watchId: "1",
        },
      ],
      watches: new Map([["1", watch("U0MAYA", "1", { daily: 540 })]]),
    });
    expect(m.text).toBe("Your watches: 2 threads matched");
    const texts = allTexts(m.blocks);
    expect(texts.slice(0, 3)).toEqual([
      "Your watches: 2 threads",
      `:telescope: Your daily watch DM (09:00 your time) · matched since ${dateOf(Date.parse("2026-03-13T08:00:00Z"))}2026-03-13 08:00 UTC>`,
      `*Second refund report*\n:red_circle: Negative · :clock3: Awaiting answer · 6 messages · last activity ${dateOf(Date.parse("2026-03-13T12:00:00Z"))}2026-03-13 12:00 UTC> · :busts_in_silhouette: Lumen DB Support · matches “refund failed”`,
    ]);
    expect(texts.filter((t) => t === "Messages")).toHaveLength(2);
    expectWithinLimits(m.blocks);
    // Quiet hours: said as such.
    const held = renderGatheredWatchDm({
      reason: "held",
      sinceMs: 0,
      lines: [{ digest: digest(), watchId: "9" }],
      watches: new Map(),
    });
    expect(allTexts(held.blocks)[1]).toContain(":telescope: Held during your quiet hours · matched since");
    expect(allTexts(held.blocks)[2]).not.toContain("matches");
  });
});

describe("what /insight watch says", () => {
  it("confirms what it understood, how DMs come, and the count", () => {
    expect(
      watchAddedText({
        watch: watch("U0MAYA", "1", { quiet: QUIET }),
        count: 1,
        limit: 10,
        timeZone: "Europe/Berlin",
      }),
    ).toBe(
      [
        ":telescope: Watching: “refund failed” in any group · quiet 22:00–07:00.",
        "A thread matches when every word is in its title, summary or keywords and it passes the filters.",
        "You get a DM when a thread first matches; later changes edit that DM instead of sending another. Between 22:00 and 07:00 (Europe/Berlin) they wait, and come gathered in one DM when your quiet hours end.",
        "This is watch 1 of 10: `/insight watch list` shows them, `/insight watch off 1` stops this one.",
      ].join("\n"),
    );
    expect(
      watchAddedText({
        watch: watch("U0MAYA", "2", { daily: 540 }),
        count: 2,
        limit: 10,
        timeZone: "UTC",
      }).split("\n")[2],
    ).toBe("You get one DM a day at 09:00 (UTC) listing the threads that matched since the last one.");
    expect(watchLimitText(10, 10)).toBe(
      ":no_entry: You already have 10 watches, the most one person can keep (10). Stop one first: `/insight watch list`, then `/insight watch off &lt;number&gt;`.",
    );
  });

  it("lists watches (numbered, with Remove) and pending reminders (with Cancel)", () => {
    const m = renderWatchList({
      watches: [
        watch("U0MAYA", "1", { quiet: QUIET }),
        watch("U0MAYA", "3", {
          words: [],
          group: { id: "g", name: "Support" },
          filters: { unanswered: true },
          daily: 540,
        }),
      ],
      reminders: [reminder],
      limit: 10,
      timeZone: "Europe/Berlin",
    });
    expect(m.text).toBe("Your watches: 2 of 10, 1 pending reminder");
    expect(allTexts(m.blocks)).toEqual([
      ":telescope: *Your watches* (2 of 10) · times in Europe/Berlin",
      "*1.* “refund failed” in any group · quiet 22:00–07:00",
      "Remove",
      "*2.* threads in Support · unanswered questions only · daily at 09:00",
      "Remove",
      "*Pending reminders (1)*",
      `:alarm_clock: *Refund failed after the upgrade* in <#C0DIGESTS> · ${dateOf(DUE)}2026-03-13 23:30 UTC>`,
      "Cancel",
      "Stop one with `/insight watch off &lt;number&gt;`, or all with `/insight watch off all`. Edit them on the app's Home tab.",
    ]);
    const values = JSON.stringify(m.blocks);
    expect(values).toContain('"action_id":"insight.watch.remove","value":"{\\"i\\":\\"3\\"}"');
    expect(values).toContain('"action_id":"insight.remind.cancel","value":"{\\"i\\":\\"r1\\"}"');
    expectWithinLimits(m.blocks);
    expect(
      allTexts(renderWatchList({ watches: [], reminders: [], limit: 10, timeZone: "UTC" }).blocks),
    ).toEqual([
      ":telescope: You watch nothing yet. Try `/insight watch refund failed --sentiment negative`.",
    ]);
  });
});

describe("reminders", () => {
  it("the DM says the thread's state now; the confirmation says when, in the reader's own time", () => {
    expect(
      reminderText({
        title: "Refund failed after the upgrade",
        groupName: "Lumen DB Support",
        digest: digest(),
        triage: { followers: 0, assignee: { user: "U0SAM", by: "U0MAYA", atMs: 0 } },
      }),
    ).toBe(
      [
        ":alarm_clock: Reminder: *Refund failed after the upgrade* — Lumen DB Support",
        `:red_circle: Negative · :clock3: Awaiting answer · 6 messages · last activity ${dateOf(Date.parse("2026-03-13T12:00:00Z"))}2026-03-13 12:00 UTC> · :bust_in_silhouette: assigned to <@U0SAM>`,
        "Not marked handled yet.",
      ].join("\n"),
    );
    expect(reminderSetText({ title: "Refund failed after the upgrade", dueAtMs: DUE })).toBe(
      `:alarm_clock: I will remind you about *Refund failed after the upgrade* (${dateOf(DUE)}2026-03-13 23:30 UTC>), unless it is marked handled by then. Cancel it from \`/insight watch list\` or the Home tab.`,
    );
  });

  it("every card has the Remind me menu: in 1 hour, in 4 hours, tomorrow at 9:00", () => {
    const card = renderThreadDigest(digest());
    const actions = card.blocks.at(-1) as {
      elements: { action_id: string; options?: { text: { text: string }; value: string }[] }[];
    };
    const menu = actions.elements.find((e) => e.action_id === "digest.remind");
    expect(menu?.options?.map((o) => [o.value, o.text.text])).toEqual([
      ["1h", "In 1 hour"],
      ["4h", "In 4 hours"],
      ["tomorrow", "Tomorrow at 9:00"],
    ]);
    expect(JSON.stringify(renderThreadDigest(digest(), { format: "compact" }).blocks)).toContain(
      "digest.remind",
    );
  });
});

describe("Home: My watches", () => {
  it("lists the viewer's watches with Edit and Remove and their reminders with Cancel, before the subscriptions", () => {
    const view = renderHome({
      subscriptions: [],
      schedules: new Map(),
      status: undefined,
      help: [],
      canChange: true,
      adminsOnly: false,
      personal: { watches: [watch("U0MAYA", "1", { quiet: QUIET })], reminders: [reminder], limit: 10 },
    });
    const texts = allTexts(view.blocks);
    const mine = texts.indexOf(":telescope: *My watches* — 1 of 10, seen only by you");
    expect(mine).toBeGreaterThan(0);
    expect(texts.slice(mine, mine + 6)).toEqual([
      ":telescope: *My watches* — 1 of 10, seen only by you",
      "*1.* “refund failed” in any group · quiet 22:00–07:00",
      "Edit",
      "Remove",
      "*Pending reminders (1)*",
      `:alarm_clock: *Refund failed after the upgrade* in <#C0DIGESTS> · ${dateOf(DUE)}2026-03-13 23:30 UTC>`,
    ]);
    expect(texts.findIndex((t) => t.startsWith("*Subscriptions*"))).toBeGreaterThan(mine);
    const none = renderHome({
      subscriptions: [],
      schedules: new Map(),
      status: undefined,
      help: [],
      canChange: true,
      adminsOnly: false,
      personal: { watches: [], reminders: [], limit: 10 },
    });
    expect(allTexts(none.blocks)).toContain(
      "No watch yet. `/insight watch refund failed --sentiment negative` sends you a DM when a thread like that comes in.",
    );
  });

  it("the Edit modal is filled in with the watch, each field named by its block id", () => {
    const v = renderWatchModal(
      watch("U0MAYA", "3", {
        words: ["refund", "dark mode"],
        group: { id: "g", name: "Lumen DB Support" },
        filters: { sentiments: ["negative"], keywords: ["chargeback"], minMessages: 3 },
        quiet: QUIET,
      }),
      { timeZone: "Europe/Berlin" },
    );
    expect(v.callback_id).toBe("insight.watch.modal");
    expect(v.private_metadata).toBe('{"i":"3"}');
    const initial = Object.fromEntries(
      (v.blocks as { block_id?: string; element?: Record<string, unknown> }[])
        .filter((b) => b.block_id)
        .map((b) => [
          b.block_id,
          b.element?.initial_value ?? b.element?.initial_time ?? b.element?.initial_options ?? null,
        ]),
    );
    expect(initial).toMatchObject({
      words: 'refund "dark mode"',
      group: "Lumen DB Support",
      keywords: "chargeback",
      min_messages: "3",
      quiet_from: "22:00",
      quiet_to: "07:00",
      daily: null,
    });
    expect(JSON.stringify(v.blocks)).toContain("Your time zone: Europe/Berlin.");
  });
});

describe("the search modal", () => {
  const form: SearchFormState = {
    query: "replicas fall behind after the upgrade",
    groups: "channel",
    followed: [{ id: "group-support-01", name: "Lumen DB Support" }],
    channelFollows: true,
    channelId: "C0DIGESTS",
  };

  it("loads at once, saying what it looks for", () => {
    const v = renderSearchLoading({ query: form.query, where: "the community", state: { c: "C0DIGESTS" } });
    expect(allTexts(v.blocks)).toEqual([
      ":hourglass_flowing_sand: Searching the community for “replicas fall behind after the upgrade”…",
    ]);
    expect(v).toMatchObject({
      title: { text: "Search the community" },
      private_metadata: '{"c":"C0DIGESTS"}',
    });
    expect(v.submit).toBeUndefined();
  });

  it("shows the matching threads with group, sentiment, activity, View messages and Share in channel", () => {
    const entries = searchEntries(
      [
        {
          kind: "thread",
          id: "thr_lag",
          title: "Replicas fall minutes behind after upgrading to 0.15",
          summary: "Read replicas lag 3–5 minutes behind the primary.",
          score: 0.9,
          raw: { sentiment: "negative", lastMessageDate: "2026-03-13T12:00:00.000Z", messageCount: 14 },
          groupName: "Lumen DB Support",
          groupId: "group-support-01",
        },
      ],
      [
        {
          kind: "message",
          id: "m1",
          text: "Same lag here on ARM64",
          threadId: "thr_arm",
          threadTitle: "ARM64 replicas",
          author: "Dana",
          date: "2026-03-12T09:00:00.000Z",
          score: 0.5,
          raw: {},
          groupName: "Lumen DB Support",
          groupId: "group-support-01",
        },
        {
          kind: "message",
          id: "m2",
          text: "another message of the first thread",
          threadId: "thr_lag",
          threadTitle: "Replicas fall minutes behind after upgrading to 0.15",
          author: undefined,
          date: undefined,
          score: 0.4,
          raw: {},
          groupName: "Lumen DB Support",
          groupId: "group-support-01",
        },
      ],
    );
    expect(entries.map((e) => e.id)).toEqual(["thr_lag", "thr_arm"]);
    const v = renderSearchResultsModal({ form, where: "Lumen DB Support", entries, failures: [], cut: true });
    const texts = allTexts(v.blocks);
    expect(texts).toContain(
      "*2 threads* in Lumen DB Support match “replicas fall behind after the upgrade”.",
    );
    expect(texts).toContain("The message was long: its first words were searched.");
    expect(texts).toContain(
      `*Replicas fall minutes behind after upgrading to 0.15*\n:busts_in_silhouette: Lumen DB Support · :red_circle: Negative · 14 messages · last activity ${dateOf(Date.parse("2026-03-13T12:00:00Z"))}2026-03-13 12:00 UTC>\nRead replicas lag 3–5 minutes behind the primary.`,
    );
    expect(texts.filter((t) => t === "View messages")).toHaveLength(2);
    expect(texts.filter((t) => t === "Share in channel")).toHaveLength(2);
    // The form stays on top to refine: the words, this channel's groups, where to share.
    const query = (v.blocks as { block_id?: string; element?: { initial_value?: string } }[]).find(
      (b) => b.block_id === "query",
    );
    expect(query?.element?.initial_value).toBe(form.query);
    expect(JSON.stringify(v.blocks)).toContain('"initial_conversation":"C0DIGESTS"');
    expect(v.submit).toEqual({ type: "plain_text", text: "Search" });
    const none = renderSearchResultsModal({ form, where: "Lumen DB Support", entries: [], failures: [] });
    expect(allTexts(none.blocks)).toContain(
      "No thread in Lumen DB Support matches “replicas fall behind after the upgrade”. Try other words.",
    );
  });
});
