import { createRequire } from "node:module";
import type * as NapiCanvas from "@napi-rs/canvas";
import type * as ChartJs from "chart.js";
import type { ChartConfiguration, ChartDataset } from "chart.js";
import type { GroupWeek } from "../domain/weekly-report.js";
import type { Tone } from "../domain/sentiment.js";
import { TONES, type ToneCounts } from "../domain/weekly-stats.js";
import { dayLabel, type WeekWindow } from "../domain/weekly-window.js";

/*
 * The weekly chart: threads per day by sentiment, this week against the week before, drawn by
 * Chart.js on @napi-rs/canvas (Skia; its prebuilt binary is an npm package, nothing is
 * downloaded at install time) and encoded as PNG. Both are loaded on first use, so a platform
 * without the native binary loses the chart, never the summary.
 */

export const CHART_SIZE = { width: 1000, height: 520 } as const;

export interface SentimentChartInput {
  /** Shown as the chart's title (a group name: plain text in pixels, nothing to escape). */
  title: string;
  /** Seven day labels, oldest first: the calendar days of the summary's header. */
  labels: string[];
  /** The zone of those days, named in the subtitle. */
  timeZone: string;
  thisWeek: ToneCounts[];
  /** Undefined when the week before could not be read. */
  lastWeek: ToneCounts[] | undefined;
}

const COLOURS: Record<Tone, string> = {
  positive: "#2EB67D",
  neutral: "#9AA5B1",
  mixed: "#ECB22E",
  negative: "#E01E5A",
  unknown: "#D5DAE0",
};
const TONE_NAMES: Record<Tone, string> = {
  positive: "Positive",
  neutral: "Neutral",
  mixed: "Mixed",
  negative: "Negative",
  unknown: "Not rated",
};
const FONT = "Inter, 'DejaVu Sans', 'Liberation Sans', sans-serif";
const TITLE_MAX = 80;

/**
 * The chart's data for one group's week; pure. The bars are the very per-day counts of the
 * summary's text (threads by calendar day of last activity, in the window's zone).
 */
export function sentimentChartInput(w: GroupWeek, window: WeekWindow): SentimentChartInput {
  const name = w.groupName.trim() || w.groupId;
  return {
    title: `${name.length > TITLE_MAX ? `${name.slice(0, TITLE_MAX - 1)}…` : name}: threads by sentiment per day`,
    labels: window.days.map(dayLabel),
    timeZone: window.timeZone,
    thisWeek: w.stats.sentimentByDay,
    lastWeek: w.previous?.sentimentByDay,
  };
}

function withAlpha(hex: string, alpha: number): string {
  const v = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(v >> 16) & 255}, ${(v >> 8) & 255}, ${v & 255}, ${alpha})`;
}

/** Chart.js configuration: two stacked bars a day (the week before faded, then this week). */
export function chartConfig(input: SentimentChartInput): ChartConfiguration<"bar"> {
  const datasets: ChartDataset<"bar">[] = [];
  const hasUnrated = [...input.thisWeek, ...(input.lastWeek ?? [])].some((d) => d.unknown > 0);
  const tones = TONES.filter((t) => t !== "unknown" || hasUnrated);
  if (input.lastWeek) {
    const last = input.lastWeek;
    for (const tone of tones) {
      datasets.push({
        label: `${TONE_NAMES[tone]} (week before)`,
        data: last.map((d) => d[tone]),
        backgroundColor: withAlpha(COLOURS[tone], 0.35),
        stack: "week before",
      });
    }
  }
  for (const tone of tones) {
    datasets.push({
      label: TONE_NAMES[tone],
      data: input.thisWeek.map((d) => d[tone]),
      backgroundColor: COLOURS[tone],
      stack: "this week",
    });
  }
  return {
    type: "bar",
    data: { labels: input.labels, datasets },
    options: {
      responsive: false,
      animation: false,
      devicePixelRatio: 1,
      layout: { padding: 16 },
      font: { family: FONT },
      plugins: {
        title: { display: true, text: input.title, font: { family: FONT, size: 20, weight: "bold" } },
        subtitle: {
          display: true,
          text: input.lastWeek
            ? `Threads by day of last activity (${input.timeZone}): the week before (faded, left) and this week (right)`
            : `Threads by day of last activity (${input.timeZone}); the week before could not be read`,
          font: { family: FONT, size: 14 },
          padding: { bottom: 8 },
        },
        legend: {
          position: "bottom",
          labels: {
            font: { family: FONT, size: 14 },
            filter: (item) => !item.text.endsWith("(week before)"),
          },
        },
      },
      scales: {
        x: { stacked: true, ticks: { font: { family: FONT, size: 14 } }, grid: { display: false } },
        y: {
          stacked: true,
          beginAtZero: true,
          ticks: { precision: 0, font: { family: FONT, size: 13 } },
          title: { display: true, text: "threads", font: { family: FONT, size: 13 } },
        },
      },
    },
    plugins: [
      {
        // Slack shows images on dark themes too: paint a white ground instead of transparency.
        id: "white-background",
        beforeDraw(chart) {
          const ctx = chart.ctx;
          ctx.save();
          ctx.fillStyle = "#FFFFFF";
          ctx.fillRect(0, 0, chart.width, chart.height);
          ctx.restore();
        },
      },
    ],
  };
}

// Type-only: the modules themselves are imported on first use, below.
type ChartModule = typeof ChartJs;
type CanvasModule = typeof NapiCanvas;
let loaded: Promise<{ Chart: ChartModule["Chart"]; canvas: CanvasModule }> | undefined;

/** Loads Chart.js and the canvas once, registers the bar chart parts and a bundled font. */
function load(): Promise<{ Chart: ChartModule["Chart"]; canvas: CanvasModule }> {
  loaded ??= (async () => {
    const [chartjs, canvas] = await Promise.all([import("chart.js"), import("@napi-rs/canvas")]);
    chartjs.Chart.register(
      chartjs.BarController,
      chartjs.BarElement,
      chartjs.CategoryScale,
      chartjs.LinearScale,
      chartjs.Legend,
      chartjs.Title,
      chartjs.SubTitle,
    );
    // A font that ships with the app: slim containers have no system fonts at all.
    const require = createRequire(import.meta.url);
    for (const file of [
      "inter-latin-400-normal.woff2",
      "inter-latin-700-normal.woff2",
      "inter-latin-ext-400-normal.woff2",
    ]) {
      try {
        canvas.GlobalFonts.registerFromPath(require.resolve(`@fontsource/inter/files/${file}`), "Inter");
      } catch {
        // System fonts remain; labels still render where there are any.
      }
    }
    return { Chart: chartjs.Chart, canvas };
  })().catch((err: unknown) => {
    loaded = undefined; // try again next time rather than caching the failure
    throw err;
  });
  return loaded;
}

/** Renders the chart as a PNG of exactly `size` pixels. */
export async function renderSentimentChart(
  input: SentimentChartInput,
  size: { width: number; height: number } = CHART_SIZE,
): Promise<Buffer> {
  const { Chart, canvas } = await load();
  const surface = canvas.createCanvas(size.width, size.height);
  // Chart.js draws through the standard 2D context API, which Skia's context implements.
  const ctx = surface.getContext("2d") as unknown as ConstructorParameters<ChartModule["Chart"]>[0];
  const chart = new Chart(ctx, chartConfig(input));
  try {
    return await surface.encode("png");
  } finally {
    chart.destroy();
  }
}
