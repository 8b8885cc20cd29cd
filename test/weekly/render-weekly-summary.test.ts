import { describe, expect, it } from "vitest";
import { groupOutcome, type GroupOutcome, type WeeklyReport } from "../../src/domain/weekly-report.js";
import { weekStats } from "../../src/domain/weekly-stats.js";
import { ACTIONS } from "../../src/slack/action-ids.js";
import {
  formatDelta,
  MAX_CHARTS,
  renderWeeklyReport,
  threadsChange,
} from "../../src/slack/render/weekly-summary.js";
import { buttons } from "../slack/commands/helpers.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits } from "../slack/render/walk.js";
import { thread, WEEK, WINDOW } from "./week-fixture.js";

const PREVIOUS = [
  thread({ id: "p1", lastMessageDate: "2026-02-24T10:00:00.000Z", sentiment: "positive", messageCount: 2 }),
  thread({ id: "p2", lastMessageDate: "2026-02-25T10:00:00.000Z", sentiment: "negative", messageCount: 2 }),
  thread({ id: "p3", lastMessageDate: "2026-02-26T10:00:00.000Z", sentiment: "negative", messageCount: 2 }),
  thread({ id: "p4", lastMessageDate: "2026-02-27T10:00:00.000Z", sentiment: "neutral", messageCount: 2 }),
];

function outcome(
  o: {
    name?: string;
    threads?: typeof WEEK;
    previous?: typeof WEEK | undefined;
    id?: string;
    handled?: string[];
  } = {},
): GroupOutcome {
  const current = weekStats(o.threads ?? WEEK, { dayStarts: WINDOW.dayStarts });
  const prev = "previous" in o ? o.previous : PREVIOUS;
  const handled = o.handled ? new Set(o.handled) : undefined;
  return groupOutcome({
    groupId: o.id ?? "g-support",
    groupName: o.name ?? "Acme Support",
    stats: current,
    previous: prev ? weekStats(prev, { dayStarts: WINDOW.prevDayStarts }) : undefined,
    previousError: prev ? undefined : "server_error",
    days: WINDOW.days,
    handled: handled && { count: handled.size, ids: handled },
  });
}

const report = (groups: GroupOutcome[]): WeeklyReport => ({
  channelId: "C1",
  window: WINDOW,
  timeZone: "UTC",
  groups,
});
const joined = (blocks: unknown[]) => allTexts(blocks).join("\n");

describe("renderWeeklyReport", () => {
  it("one group's week: counts, sentiment change, keywords, questions, threads and days", () => {
    const m = renderWeeklyReport(report([outcome()]));
    expect(m).toMatchSnapshot();
    expect(m.part).toBe("summary");
    expect(m.chartGroupIds).toEqual(["g-support"]);
    expect(m.text).toBe("Weekly summary for Acme Support: 6 threads, 64 messages (Mar 2 – Mar 8, 2026)");
    const t = joined(m.blocks);
    expect(t).toContain("Weekly summary: Acme Support");
    expect(t).toContain(
      "Mar 2 – Mar 8, 2026: 7 calendar days in UTC. Threads count on the day of their last activity.",
    );
    expect(t).toContain("*Threads active*\n6 (+50% on the week before)");
    expect(t).toContain("*Messages in these threads*\n64 (1 thread without a count)");
    expect(t).not.toContain("Marked handled"); // no triage store given
    // 4 rated this week (1 positive, 1 mixed, 2 negative); before: 1 positive, 1 neutral, 2 negative.
    expect(t).toContain(":large_green_circle: Positive *25%* (1) · no change");
    expect(t).toContain(":white_circle: Neutral *0%* (0) · ▼ 25 pts");
    expect(t).toContain(":large_yellow_circle: Mixed *25%* (1) · ▲ 25 pts");
    expect(t).toContain(":red_circle: Negative *50%* (2) · no change");
    expect(t).toContain("_2 threads not rated yet_");
    expect(t).toContain(
      "*Recurring keywords* (threads that have each): refund (3) · billing (2) · dark mode (2)",
    );
    expect(t).toContain("*Questions:* 4 threads started with a question — ");
    // Still open, quiet longest first: b, d, e.
    const open = t.slice(t.indexOf("Still open"));
    expect(open.indexOf("Dark mode resets after update")).toBeLessThan(open.indexOf("Invoice PDF is blank"));
    expect(open.indexOf("Invoice PDF is blank")).toBeLessThan(open.indexOf("App crashes on launch"));
    expect(t).toContain(
      "• Dark mode resets after update — :question: Unanswered · 25 messages · last activity Mar 3",
    );
    // Day 1 (Tue 3) holds b and c, day 6 (Sun 8) holds e and f, day 0 (Mon 2) holds a.
    expect(t).toContain(
      "*Busiest days* (threads by day of last activity): Tue, Mar 3 (2 threads) · Sun, Mar 8 (2 threads) · Mon, Mar 2 (1 thread)",
    );
    expect(t).toContain("A chart of threads by sentiment per day in the replies.");
    expectWithinLimits(m.blocks);
  });

  it("`weekly now` says its week ends now, today included", async () => {
    const { weekWindow } = await import("../../src/domain/weekly-window.js");
    const window = weekWindow(Date.parse("2026-03-08T15:00:00.000Z"), "UTC", { untilNow: true });
    const m = renderWeeklyReport({ ...report([outcome()]), window });
    expect(joined(m.blocks)).toContain(
      "Mar 2 – Mar 8, 2026: the last 7 days up to now, today included, in UTC. Threads count on the day of their last activity.",
    );
  });

  it("most active threads carry a View messages button for the messages modal", () => {
    const m = renderWeeklyReport(report([outcome()]));
    const b = buttons(m.blocks);
    expect(b).toHaveLength(5);
    expect(b.every((x) => x.action_id === ACTIONS.viewMessages && x.text.text === "View messages")).toBe(
      true,
    );
    expect(b.map((x) => JSON.parse(x.value) as { t: string }).map((v) => v.t)).toEqual([
      "e",
      "b",
      "a",
      "c",
      "f",
    ]);
    expect(JSON.parse(b[0]?.value ?? "{}")).toEqual({
      g: "g-support",
      t: "e",
      n: "App crashes on launch",
      p: 1,
    });
  });

  it("marked handled here: N of M, and handled threads leave Still open", () => {
    const m = renderWeeklyReport(report([outcome({ handled: ["b", "c"] })]));
    const t = joined(m.blocks);
    expect(t).toContain("*Marked handled here*\n2 of 6 (Mark handled on their cards)");
    const open = t.slice(t.indexOf("Still open"), t.indexOf("*Busiest days*"));
    expect(open).not.toContain("Dark mode resets after update"); // b: handled
    expect(open).toContain("Invoice PDF is blank");
    expect(open).toContain("App crashes on launch");
    expect(t).toContain(":ballot_box_with_check: handled"); // b among the most active
    const all = joined(renderWeeklyReport(report([outcome({ handled: ["b", "d", "e"] })])).blocks);
    expect(all).not.toContain("Still open");
    expect(all).toContain("_Every open question was marked handled here._");
  });

  it("leaves the handled count out where nobody marked anything handled (no '0 of 6')", () => {
    const t = joined(renderWeeklyReport(report([outcome({ handled: [] })])).blocks);
    expect(t).not.toContain("Marked handled");
    expect(t).not.toContain("0 of 6");
  });

  it("says so when the week before could not be read", () => {
    const m = renderWeeklyReport(report([outcome({ previous: undefined })]));
    const t = joined(m.blocks);
    expect(t).toContain("*Threads active*\n6\n");
    expect(t).toContain("_No comparison: the week before could not be read._");
    expect(t).not.toContain("pts");
  });

  it("a quiet week is one line", () => {
    const quiet = { kind: "empty", groupId: "g2", groupName: "Announcements" } as const;
    const quiet2 = { kind: "empty", groupId: "g3", groupName: "Off-topic" } as const;
    const m = renderWeeklyReport(report([quiet, quiet2]));
    expect(m.blocks).toHaveLength(1);
    expect(m.chartGroupIds).toEqual([]);
    const line = joined(m.blocks);
    expect(line).toBe(
      ":zzz: Weekly summary, Mar 2 – Mar 8, 2026: a quiet week, no threads in *Announcements* and *Off-topic*.",
    );
    expect(m.text).toBe(
      ":zzz: Weekly summary, Mar 2 – Mar 8, 2026: a quiet week, no threads in Announcements and Off-topic.",
    );
  });

  it("several groups: one message, a section each, quiet and unreadable groups named at the end", () => {
    const m = renderWeeklyReport(
      report([
        outcome({ id: "g1", name: "Support" }),
        { kind: "failed", groupId: "g9", groupName: "Beta testers", reason: "forbidden" },
        outcome({ id: "g2", name: "Rides" }),
        { kind: "empty", groupId: "g3", groupName: "Announcements" },
      ]),
    );
    expect(m.chartGroupIds).toEqual(["g1", "g2"]);
    expect(m.text).toBe("Weekly summary (Mar 2 – Mar 8, 2026): Support: 6 threads · Rides: 6 threads");
    const t = joined(m.blocks);
    expect(m.blocks[0]).toMatchObject({ type: "header", text: { text: "Weekly summary" } });
    expect(t.indexOf("*Support*")).toBeGreaterThan(0);
    expect(t.indexOf("*Rides*")).toBeGreaterThan(t.indexOf("*Support*"));
    expect(t.match(/\*Threads active\*/g)).toHaveLength(2);
    expect(t).toContain(":zzz: No threads this week in *Announcements*.");
    expect(t).toContain(
      ":no_entry: Could not read *Beta testers*: the API key may not read it (403). A community admin can grant access in the Insight dashboard.",
    );
    expect(t).toContain("Charts of threads by sentiment per day in the replies.");
    expectWithinLimits(m.blocks);
    // Every group's View buttons fit, at the same number per group.
    const perGroup = buttons(m.blocks).map((b) => (JSON.parse(b.value) as { g: string }).g);
    expect(perGroup.filter((g) => g === "g1").length).toBe(perGroup.filter((g) => g === "g2").length);
  });

  it("many groups still fit one message: fewer buttons, then one line per group", () => {
    for (const count of [4, 8, 30, 80]) {
      const groups = Array.from({ length: count }, (_, i) => outcome({ id: `g${i}`, name: `Group ${i}` }));
      const m = renderWeeklyReport(report(groups));
      expectWithinLimits(m.blocks);
      expect(m.chartGroupIds).toHaveLength(Math.min(count, MAX_CHARTS));
      const t = joined(m.blocks);
      expect(t).toContain("Group 0");
      if (count === 30) expect(t).toContain("• *Group 29*: 6 threads active (+50% on the week before)");
    }
  });

  it("when no group could be summarised, one message names them all", () => {
    const m = renderWeeklyReport(
      report([
        { kind: "failed", groupId: "g9", groupName: "Beta testers", reason: "forbidden" },
        { kind: "empty", groupId: "g3", groupName: "Announcements" },
      ]),
    );
    expect(m.chartGroupIds).toEqual([]);
    const t = joined(m.blocks);
    expect(t).toContain("*Weekly summary*, Mar 2 – Mar 8, 2026");
    expect(t).toContain("Could not read *Beta testers*");
    expect(t).toContain("No threads this week in *Announcements*");
  });

  it("escapes community text and holds every Block Kit limit, however long the titles", () => {
    const hostile = Array.from({ length: 12 }, (_, i) =>
      thread({
        id: `h${i}`,
        title: `<!channel> <@U123> <https://evil.example|click> & ${"x".repeat(3_000)}`,
        lastMessageDate: "2026-03-04T10:00:00.000Z",
        messageCount: 100 - i,
        sentiment: "<!here>",
        keywords: [`<!subteam^S1|@team> ${i}`, "@everyone"],
        isQuestionLed: true,
        questionResponseStatus: "<@U999>",
      }),
    );
    for (const groups of [1, 3]) {
      const m = renderWeeklyReport(
        report([
          ...Array.from({ length: groups }, (_, i) =>
            outcome({ id: `g${i}`, name: `<!everyone> ${"Group ".repeat(100)}`, threads: hostile }),
          ),
          { kind: "failed", groupId: "g9", groupName: "<#C123> & co", reason: "not_found" },
        ]),
      );
      expectWithinLimits(m.blocks);
      expectNoLiveTokens(m.blocks);
      expect(m.text).not.toMatch(/<[!@#]/);
      for (const b of buttons(m.blocks)) expect(b.value.length).toBeLessThanOrEqual(2_000);
      expect(joined(m.blocks)).toContain("&lt;#C123&gt; &amp; co");
    }
  });
});

describe("small formatters", () => {
  it.each<[number | undefined, string]>([
    [undefined, ""],
    [0, "no change"],
    [1, "▲ 1 pt"],
    [12.5, "▲ 12.5 pts"],
    [-3, "▼ 3 pts"],
  ])("formatDelta(%s) = %j", (p, s) => expect(formatDelta(p)).toBe(s));

  it.each<[number, number | undefined, string]>([
    [6, 4, " (+50% on the week before)"],
    [3, 4, " (-25% on the week before)"],
    [4, 4, " (same as the week before)"],
    [1001, 1000, " (about the same as the week before)"],
    [4, 0, " (none the week before)"],
    [4, undefined, ""],
  ])("threadsChange(%i, %s) = %j", (c, p, s) => expect(threadsChange(c, p)).toBe(s));
});
