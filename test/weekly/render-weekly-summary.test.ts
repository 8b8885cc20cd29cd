import { describe, expect, it } from "vitest";
import { groupOutcome, type GroupOutcome, type WeeklyReport } from "../../src/domain/weekly-report.js";
import { weekStats } from "../../src/domain/weekly-stats.js";
import { utcDaysCovering } from "../../src/domain/weekly-window.js";
import { ACTIONS } from "../../src/slack/action-ids.js";
import { formatDelta, renderWeeklyReport, threadsChange } from "../../src/slack/render/weekly-summary.js";
import { buttons } from "../slack/commands/helpers.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits } from "../slack/render/walk.js";
import { thread, WEEK, WINDOW } from "./week-fixture.js";

const days = utcDaysCovering(WINDOW.start, WINDOW.end);
const PREVIOUS = [
  thread({ id: "p1", lastMessageDate: "2026-02-24T10:00:00.000Z", sentiment: "positive", messageCount: 2 }),
  thread({ id: "p2", lastMessageDate: "2026-02-25T10:00:00.000Z", sentiment: "negative", messageCount: 2 }),
  thread({ id: "p3", lastMessageDate: "2026-02-26T10:00:00.000Z", sentiment: "negative", messageCount: 2 }),
  thread({ id: "p4", lastMessageDate: "2026-02-27T10:00:00.000Z", sentiment: "neutral", messageCount: 2 }),
];

function outcome(
  o: { name?: string; threads?: typeof WEEK; previous?: typeof WEEK | undefined; id?: string } = {},
): GroupOutcome {
  const current = weekStats(o.threads ?? WEEK, { weekStart: WINDOW.start });
  const prev = "previous" in o ? o.previous : PREVIOUS;
  return groupOutcome({
    groupId: o.id ?? "g-support",
    groupName: o.name ?? "Acme Support",
    stats: current,
    previous: prev ? weekStats(prev, { weekStart: WINDOW.prevStart }) : undefined,
    previousError: prev ? undefined : "server_error",
    messageActivity: { "2026-03-03": 120, "2026-03-05": 40, "2026-03-08": 75 },
    days,
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
    const [m, ...rest] = renderWeeklyReport(report([outcome()]));
    expect(rest).toHaveLength(0);
    if (!m) throw new Error("no message");
    expect(m).toMatchSnapshot();
    expect(m.part).toBe("group:g-support");
    expect(m.groupId).toBe("g-support");
    expect(m.text).toBe("Weekly summary for Acme Support: 6 threads, 64 messages (Mar 2 – Mar 9, 2026)");
    const t = joined(m.blocks);
    expect(t).toContain("Weekly summary: Acme Support");
    expect(t).toContain("Mar 2 – Mar 9, 2026 (UTC) · the last 7 days");
    expect(t).toContain("*Threads*\n6 (+50% on the week before)");
    expect(t).toContain("*Messages in them*\n64 (1 thread without a count)");
    // 4 rated this week (1 positive, 1 mixed, 2 negative); before: 1 positive, 1 neutral, 2 negative.
    expect(t).toContain(":large_green_circle: Positive *25%* (1) · no change");
    expect(t).toContain(":white_circle: Neutral *0%* (0) · ▼ 25 pts");
    expect(t).toContain(":large_yellow_circle: Mixed *25%* (1) · ▲ 25 pts");
    expect(t).toContain(":red_circle: Negative *50%* (2) · no change");
    expect(t).toContain("_2 threads not rated yet_");
    expect(t).toContain("*Top keywords:* refund (3) · billing (2) · dark mode (2)");
    expect(t).toContain(
      "*Questions:* 4 threads started with a question — :white_check_mark: 1 answered · :large_orange_diamond: 1 partially answered · :question: 1 unanswered · :clock3: 1 awaiting an answer",
    );
    // Still open, quiet longest first: b, d, e.
    const open = t.slice(t.indexOf("Still open"));
    expect(open.indexOf("Dark mode resets after update")).toBeLessThan(open.indexOf("Invoice PDF is blank"));
    expect(open.indexOf("Invoice PDF is blank")).toBeLessThan(open.indexOf("App crashes on launch"));
    expect(t).toContain(
      "• Dark mode resets after update — :question: Unanswered · 25 messages · last activity Mar 3",
    );
    expect(t).toContain(
      "*Busiest days:* Tue, Mar 3 (120 messages) · Sun, Mar 8 (75 messages) · Thu, Mar 5 (40 messages)",
    );
    expectWithinLimits(m.blocks);
  });

  it("most active threads carry a View messages button for the messages modal", () => {
    const [m] = renderWeeklyReport(report([outcome()]));
    const b = buttons(m?.blocks);
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

  it("says so when the week before could not be read", () => {
    const [m] = renderWeeklyReport(report([outcome({ previous: undefined })]));
    const t = joined(m?.blocks ?? []);
    expect(t).toContain("*Threads*\n6\n");
    expect(t).toContain("_No comparison: the week before could not be read._");
    expect(t).not.toContain("pts");
  });

  it("a quiet week is one line", () => {
    const quiet = { kind: "empty", groupId: "g2", groupName: "Announcements" } as const;
    const quiet2 = { kind: "empty", groupId: "g3", groupName: "Off-topic" } as const;
    const msgs = renderWeeklyReport(report([quiet, quiet2]));
    expect(msgs).toHaveLength(1);
    const [m] = msgs;
    expect(m?.blocks).toHaveLength(1);
    const line = joined(m?.blocks ?? []);
    expect(line).toBe(
      ":zzz: Weekly summary, Mar 2 – Mar 9, 2026: a quiet week, no threads in *Announcements* and *Off-topic*.",
    );
    expect(m?.text).toBe(
      ":zzz: Weekly summary, Mar 2 – Mar 9, 2026: a quiet week, no threads in Announcements and Off-topic.",
    );
  });

  it("quiet and unreadable groups are named at the end of the last group's message", () => {
    const msgs = renderWeeklyReport(
      report([
        outcome({ id: "g1", name: "Support" }),
        { kind: "failed", groupId: "g9", groupName: "Beta testers", reason: "forbidden" },
        outcome({ id: "g2", name: "Rides" }),
        { kind: "empty", groupId: "g3", groupName: "Announcements" },
      ]),
    );
    expect(msgs.map((m) => m.part)).toEqual(["group:g1", "group:g2"]);
    expect(joined(msgs[0]?.blocks ?? [])).not.toContain("Beta testers");
    const last = joined(msgs[1]?.blocks ?? []);
    expect(last).toContain(":zzz: No threads this week in *Announcements*.");
    expect(last).toContain(
      ":no_entry: Could not read *Beta testers*: the API key may not read it (403). A community admin can grant access in the Insight dashboard.",
    );
  });

  it("when no group could be summarised, one message names them all", () => {
    const msgs = renderWeeklyReport(
      report([
        { kind: "failed", groupId: "g9", groupName: "Beta testers", reason: "forbidden" },
        { kind: "empty", groupId: "g3", groupName: "Announcements" },
      ]),
    );
    expect(msgs).toHaveLength(1);
    expect(msgs[0]?.part).toBe("notes");
    const t = joined(msgs[0]?.blocks ?? []);
    expect(t).toContain("*Weekly summary*, Mar 2 – Mar 9, 2026");
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
    const msgs = renderWeeklyReport(
      report([
        outcome({ name: `<!everyone> ${"Group ".repeat(100)}`, threads: hostile }),
        { kind: "failed", groupId: "g9", groupName: "<#C123> & co", reason: "not_found" },
      ]),
    );
    for (const m of msgs) {
      expectWithinLimits(m.blocks);
      expectNoLiveTokens(m.blocks);
      expect(m.text).not.toMatch(/<[!@#]/);
      for (const b of buttons(m.blocks)) expect(b.value.length).toBeLessThanOrEqual(2_000);
    }
    expect(joined(msgs[0]?.blocks ?? [])).toContain("&lt;#C123&gt; &amp; co");
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
