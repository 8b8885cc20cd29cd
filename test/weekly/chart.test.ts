import { describe, expect, it } from "vitest";
import { groupOutcome } from "../../src/domain/weekly-report.js";
import { emptyTones, weekStats } from "../../src/domain/weekly-stats.js";
import {
  CHART_SIZE,
  chartConfig,
  renderSentimentChart,
  sentimentChartInput,
  type SentimentChartInput,
} from "../../src/weekly/chart.js";
import { PNG_SIGNATURE, pngSize } from "./png.js";
import { WEEK, WINDOW } from "./week-fixture.js";

function input(): SentimentChartInput {
  const o = groupOutcome({
    groupId: "g1",
    groupName: "Acme Support",
    stats: weekStats(WEEK, { dayStarts: WINDOW.dayStarts }),
    previous: weekStats([], { dayStarts: WINDOW.prevDayStarts }),
    days: WINDOW.days,
  });
  if (o.kind !== "summary") throw new Error("expected a summary");
  return sentimentChartInput(o.week, WINDOW);
}

describe("the weekly chart", () => {
  it("is a valid PNG of the intended size", async () => {
    const png = await renderSentimentChart(input());
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(pngSize(png)).toEqual({ width: CHART_SIZE.width, height: CHART_SIZE.height });
    expect(png.subarray(-8, -4).toString("latin1")).toBe("IEND"); // complete, not cut short
    expect(png.length).toBeGreaterThan(5_000); // something was drawn on it
  });

  it("any size asked for", async () => {
    expect(pngSize(await renderSentimentChart(input(), { width: 640, height: 360 }))).toEqual({
      width: 640,
      height: 360,
    });
  });

  it("draws this week's tones per day next to the week before's", () => {
    const i = input();
    expect(i.title).toBe("Acme Support: threads by sentiment per day");
    expect(i.labels).toEqual(["Mon 2", "Tue 3", "Wed 4", "Thu 5", "Fri 6", "Sat 7", "Sun 8"]);
    const cfg = chartConfig(i);
    const byLabel = Object.fromEntries(cfg.data.datasets.map((d) => [d.label, d]));
    // Day 0 holds a (positive); day 1 b (negative) and c; day 6 e (negative) and f; c and f are not rated.
    expect(byLabel.Positive?.data).toEqual([1, 0, 0, 0, 0, 0, 0]);
    expect(byLabel.Negative?.data).toEqual([0, 1, 0, 0, 0, 0, 1]);
    expect(byLabel["Not rated"]?.data).toEqual([0, 1, 0, 0, 0, 0, 1]);
    expect(byLabel["Positive (week before)"]?.stack).toBe("week before");
    expect(byLabel.Positive?.stack).toBe("this week");
    expect(cfg.data.datasets).toHaveLength(10);
  });

  it("without the week before, only this week; 'not rated' only when there is some", () => {
    const cfg = chartConfig({
      title: "t",
      labels: ["a", "b", "c", "d", "e", "f", "g"],
      timeZone: "UTC",
      thisWeek: Array.from({ length: 7 }, () => ({ ...emptyTones(), positive: 1 })),
      lastWeek: undefined,
    });
    expect(cfg.data.datasets.map((d) => d.label)).toEqual(["Positive", "Neutral", "Mixed", "Negative"]);
  });
});
