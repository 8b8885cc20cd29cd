import { describe, expect, it } from "vitest";
import { groupOutcome } from "../../src/domain/weekly-report.js";
import { TONES, weekStats } from "../../src/domain/weekly-stats.js";
import { dayLabel, formatDay, weekWindow, type WeekWindow } from "../../src/domain/weekly-window.js";
import { renderWeeklyReport } from "../../src/slack/render/weekly-summary.js";
import { chartConfig, sentimentChartInput } from "../../src/weekly/chart.js";
import { allTexts } from "../slack/render/walk.js";
import { thread } from "./week-fixture.js";

/*
 * The text and the chart of one summary tell the same story, whatever the zone: built from
 * weeks that cross a daylight-saving change and threads that sit either side of midnight.
 */

const SENTIMENTS = ["positive", "negative", "neutral", "mixed", undefined] as const;

/** A local wall-clock time in a zone → the instant (the zone's offset found by trying). */
function at(local: string, timeZone: string): number {
  const wall = Date.parse(`${local}Z`);
  for (let off = -14; off <= 14; off += 0.25) {
    const t = wall - off * 3_600_000;
    const f = new Intl.DateTimeFormat("sv-SE", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    })
      .format(t)
      .replace(" ", "T");
    if (f === local.slice(0, 19)) return t;
  }
  throw new Error(`${local} does not exist in ${timeZone}`);
}

/** Threads at local times: each [local time, how many]; sentiments rotate. */
function threadsAt(times: Array<[string, number]>, timeZone: string) {
  let n = 0;
  return times.flatMap(([local, count]) =>
    Array.from({ length: count }, () => {
      const i = n++;
      return thread({
        id: `t${i}`,
        lastMessageDate: new Date(at(local, timeZone)).toISOString(),
        messageCount: 3 + (i % 4),
        sentiment: SENTIMENTS[i % SENTIMENTS.length],
      });
    }),
  );
}

function render(window: WeekWindow, threads: ReturnType<typeof threadsAt>) {
  const o = groupOutcome({
    groupId: "g1",
    groupName: "Community",
    stats: weekStats(threads, { dayStarts: window.dayStarts }),
    previous: weekStats([], { dayStarts: window.prevDayStarts }),
    days: window.days,
  });
  if (o.kind !== "summary") throw new Error("expected a summary");
  const message = renderWeeklyReport({ channelId: "C1", window, timeZone: window.timeZone, groups: [o] });
  const chart = chartConfig(sentimentChartInput(o.week, window));
  const thisWeek = chart.data.datasets.filter((d) => d.stack === "this week");
  const perDay = (chart.data.labels ?? []).map((_, i) =>
    thisWeek.reduce((sum, d) => sum + Number(d.data[i] ?? 0), 0),
  );
  return { week: o.week, text: allTexts(message.blocks).join("\n"), labels: chart.data.labels, perDay };
}

/** What the text and the chart say, checked against each other. */
function expectAgreement(r: ReturnType<typeof render>, window: WeekWindow) {
  // The chart covers exactly the header's days.
  expect(r.labels).toEqual(window.days.map(dayLabel));
  const first = window.days[0] ?? "";
  const last = window.days.at(-1) ?? "";
  expect(r.text).toContain(`${formatDay(first).slice(5)} – ${formatDay(last).slice(5)}`);
  // The chart's bars add up to the header's thread count…
  const total = r.perDay.reduce((a, b) => a + b, 0);
  expect(r.text).toContain(`*Threads active*\n${total}`);
  // …and each busiest day in the text is that day's bar.
  const busiest = /\*Busiest days\* \(threads by day of last activity\): (.*)/.exec(r.text)?.[1] ?? "";
  const named = [...busiest.matchAll(/(\w{3}, \w{3} \d+) \((\d+) threads?\)/g)];
  expect(named.length).toBeGreaterThan(0);
  for (const [, day, count] of named) {
    const i = window.days.findIndex((d) => formatDay(d) === day);
    expect(i, `${day} is one of the header's days`).toBeGreaterThanOrEqual(0);
    expect(r.perDay[i]).toBe(Number(count));
  }
  // The sentiment counts are of the same threads.
  const toneTotal = TONES.reduce((n, t) => n + r.week.stats.sentiment[t], 0);
  expect(toneTotal).toBe(total);
}

describe("the text and the chart agree", () => {
  it("Europe/Berlin, a week across the change to summer time (2026-03-29), threads either side of midnight", () => {
    const zone = "Europe/Berlin";
    const window = weekWindow(at("2026-03-30T09:00:00", zone), zone);
    expect(window.days[0]).toBe("2026-03-23");
    const threads = threadsAt(
      [
        ["2026-03-22T23:59:00", 4], // the Sunday before: not this week
        ["2026-03-23T00:00:00", 1], // the first instant of the week
        ["2026-03-24T23:59:59", 2], // Tuesday, late
        ["2026-03-25T00:00:30", 3], // Wednesday, just after midnight (UTC still Tuesday)
        ["2026-03-29T01:59:00", 2], // Sunday before the change
        ["2026-03-29T03:00:00", 5], // Sunday after the change (02:00-03:00 does not exist)
        ["2026-03-29T23:59:00", 1], // the last minute of the week
        ["2026-03-30T00:00:00", 6], // the run day: next week
      ],
      zone,
    );
    const r = render(window, threads);
    expectAgreement(r, window);
    expect(r.perDay).toEqual([1, 2, 3, 0, 0, 0, 8]);
    expect(r.text).toContain("Mar 23 – Mar 29, 2026: 7 calendar days in Europe/Berlin.");
    expect(r.text).toContain(
      "*Busiest days* (threads by day of last activity): Sun, Mar 29 (8 threads) · Wed, Mar 25 (3 threads) · Tue, Mar 24 (2 threads)",
    );
  });

  it("America/Los_Angeles, a week across the end of summer time (2026-11-01), threads either side of midnight", () => {
    const zone = "America/Los_Angeles";
    const window = weekWindow(at("2026-11-02T09:00:00", zone), zone);
    const threads = threadsAt(
      [
        ["2026-10-25T23:30:00", 2], // the Sunday before
        ["2026-10-26T00:10:00", 3], // Monday just after midnight (UTC: 07:10 Monday)
        ["2026-10-30T17:30:00", 4], // Friday afternoon (UTC: already Saturday)
        ["2026-10-31T23:59:00", 1], // Saturday, last minute
        ["2026-11-01T01:30:00", 2], // Sunday 01:30, an hour that happens twice
        ["2026-11-01T23:00:00", 3], // Sunday 23:00 (UTC: Monday 07:00)
        ["2026-11-02T08:00:00", 9], // the run day: next week
      ],
      zone,
    );
    const r = render(window, threads);
    expectAgreement(r, window);
    expect(r.perDay).toEqual([3, 0, 0, 0, 4, 1, 5]);
    expect(r.labels).toEqual(["Mon 26", "Tue 27", "Wed 28", "Thu 29", "Fri 30", "Sat 31", "Sun 1"]);
    expect(r.text).toContain("Oct 26 – Nov 1, 2026: 7 calendar days in America/Los_Angeles.");
    expect(r.text).toContain(
      "*Busiest days* (threads by day of last activity): Sun, Nov 1 (5 threads) · Fri, Oct 30 (4 threads) · Mon, Oct 26 (3 threads)",
    );
  });

  it("the same threads, summarised for two zones, count the days each zone has", () => {
    const utcThreads = threadsAt([["2026-03-04T23:30:00", 2]], "UTC"); // Thu 00:30 in Berlin
    const runAt = Date.parse("2026-03-09T12:00:00.000Z");
    const berlin = render(weekWindow(runAt, "Europe/Berlin"), utcThreads);
    const utc = render(weekWindow(runAt, "UTC"), utcThreads);
    expect(berlin.text).toContain("Thu, Mar 5 (2 threads)");
    expect(utc.text).toContain("Wed, Mar 4 (2 threads)");
    expectAgreement(berlin, weekWindow(runAt, "Europe/Berlin"));
    expectAgreement(utc, weekWindow(runAt, "UTC"));
  });
});
