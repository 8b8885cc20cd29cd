/**
 * npm run bench:weekly — one chat group's weekly summary at volume.
 *
 * Starts the emulator in-process with one group holding 20,000 threads in the last 7 days
 * (and 2,000 in the week before), every REST answer delayed LATENCY_MS, and measures in the
 * same run, alternating the order:
 *   - "fetch only": the same pages the summary reads (every page of last7Days, then the pages
 *     of last30Days around the week before), at the same concurrency, with no aggregation:
 *     the time and memory the API alone costs;
 *   - "summary": summarizeGroup, which streams those pages into the weekly counters;
 *   - "summary + render + chart": plus the Block Kit message and the PNG chart.
 * It also prints the floor the latency sets: pages × latency / concurrency. Wall time, API
 * requests (counted by the emulator), and peak RSS and heap over the idle process (after a GC)
 * are reported as medians of 3 measured rounds after 1 warm-up. Exits non-zero when the
 * summary needs 100 MB or more over idle, or takes more than 1.25 × the fetch-only time + 250 ms
 * (the app, not the API, would then be the bound).
 *
 * Environment: WEEKLY_BENCH_THREADS (default 20000), WEEKLY_BENCH_LATENCY_MS (default 50),
 * WEEKLY_BENCH_CONCURRENCY (default 4).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { startEmulator } from "../dev/emulator/index.js";
import { InsightClient } from "../src/insight/client.js";
import type { Thread } from "../src/insight/schemas.js";
import { silentLogger } from "../src/log.js";
import { weekWindow, type WeekWindow } from "../src/domain/weekly-window.js";
import { renderWeeklyReport } from "../src/slack/render/weekly-summary.js";
import { renderSentimentChart, sentimentChartInput } from "../src/weekly/chart.js";
import { readPreviousWeek } from "../src/weekly/previous-week.js";
import { streamPages, type FetchPage } from "../src/weekly/stream-pages.js";
import { summarizeGroup } from "../src/weekly/summarize-group.js";

const THREADS = Number(process.env.WEEKLY_BENCH_THREADS ?? 20_000);
const PREVIOUS_WEEK_THREADS = Math.round(THREADS / 10);
const LATENCY_MS = Number(process.env.WEEKLY_BENCH_LATENCY_MS ?? 50);
const CONCURRENCY = Number(process.env.WEEKLY_BENCH_CONCURRENCY ?? 4);
const WARMUP = 1;
const MEASURED = 3;
const MEMORY_TARGET_MB = 100;
const DAY_MS = 86_400_000;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const mb = (bytes: number) => bytes / 1024 / 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

interface Run {
  ms: number;
  requests: number;
  pages: number;
  rssMb: number;
  heapMb: number;
}
type Side = "fetch only" | "summary" | "summary + render + chart";
const SIDES: Side[] = ["fetch only", "summary", "summary + render + chart"];

async function main() {
  const now = new Date();
  const em = await startEmulator({ seeded: false, now: () => now });
  const community = em.store.addCommunity({ name: "Bench community" });
  const group = em.store.addGroup(community._id, { name: "Bench support" });
  em.store.addThreads(group._id, THREADS, { withinDays: 7 });
  const window = weekWindow(now, "UTC");
  for (let i = 0; i < PREVIOUS_WEEK_THREADS; i++) {
    em.store.addThread(group._id, {
      lastMessageDate: new Date(
        window.start - 1 - Math.floor((i * 7 * DAY_MS) / PREVIOUS_WEEK_THREADS),
      ).toISOString(),
    });
  }
  // The summary counts calendar days (midnight to midnight): the threads of the rolling 7 days
  // that fall today are not in it, those of the first day before the rolling start are.
  const inRange = (from: number, to: number) =>
    em.store.threads(group._id).filter((t) => {
      const ms = Date.parse(t.lastMessageDate);
      return ms >= from && ms < to;
    }).length;
  const expected = {
    week: inRange(window.start, window.end),
    before: inRange(window.prevStart, window.start),
  };
  em.faults.set({ latencyMs: LATENCY_MS });
  const client = new InsightClient({ baseUrl: em.baseUrl, apiKey: em.apiKey, connections: 16 });
  const fetchPage =
    (range: "last7Days" | "last30Days"): FetchPage<Thread> =>
    (page, limit, signal) =>
      client.listThreads(group._id, { range, sort: "desc", page, limit }, { signal });
  const deps = { client, logger: silentLogger };
  const ref = { groupId: group._id, groupName: group.name };

  const sides: Record<Side, (w: WeekWindow) => Promise<number>> = {
    "fetch only": async (w) => {
      let total = 0;
      const r = await streamPages(
        fetchPage("last7Days"),
        (p) => void (total = p.pagination?.total ?? total),
        {
          concurrency: CONCURRENCY,
        },
      );
      const prev = await readPreviousWeek(fetchPage("last30Days"), w, r.total, () => undefined, {
        concurrency: CONCURRENCY,
      });
      return r.pages + prev.pages;
    },
    summary: async (w) => {
      const { outcome, cost } = await summarizeGroup(deps, ref, w, { concurrency: CONCURRENCY });
      if (outcome.kind !== "summary" || outcome.week.stats.threads !== expected.week) {
        throw new Error(
          `summary counted ${outcome.kind === "summary" ? outcome.week.stats.threads : 0} threads`,
        );
      }
      if (outcome.week.previous?.threads !== expected.before) throw new Error("previous week miscounted");
      return cost.pages + cost.previousPages;
    },
    "summary + render + chart": async (w) => {
      const { outcome, cost } = await summarizeGroup(deps, ref, w, { concurrency: CONCURRENCY });
      if (outcome.kind !== "summary") throw new Error("no summary");
      const message = renderWeeklyReport({
        channelId: "C0BENCH",
        window: w,
        timeZone: "UTC",
        groups: [outcome],
      });
      const png = await renderSentimentChart(sentimentChartInput(outcome.week, w));
      if (message.blocks.length < 5 || png.length < 1_000) throw new Error("nothing rendered");
      return cost.pages + cost.previousPages;
    },
  };

  async function measure(side: Side): Promise<Run> {
    gc();
    const idle = process.memoryUsage();
    let peakRss = idle.rss;
    let peakHeap = idle.heapUsed;
    const sample = () => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    };
    const sampler = setInterval(sample, 5);
    const requestsBefore = em.requests.count();
    const started = performance.now();
    const pages = await sides[side](window);
    const ms = performance.now() - started;
    clearInterval(sampler);
    sample();
    return {
      ms,
      pages,
      requests: em.requests.count() - requestsBefore,
      rssMb: mb(peakRss - idle.rss),
      heapMb: mb(peakHeap - idle.heapUsed),
    };
  }

  process.stderr.write(
    `weekly bench: ${THREADS} threads this week, ${PREVIOUS_WEEK_THREADS} the week before, ` +
      `${LATENCY_MS} ms latency, ${CONCURRENCY} pages in flight\n`,
  );
  const runs: Record<Side, Run[]> = { "fetch only": [], summary: [], "summary + render + chart": [] };
  for (let round = 0; round < WARMUP + MEASURED; round++) {
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) {
      const r = await measure(side);
      if (round >= WARMUP) runs[side].push(r);
      process.stderr.write(
        `${side.padEnd(26)} ${round < WARMUP ? "warm-up" : `run ${round - WARMUP + 1}`}: ${r.ms.toFixed(0)} ms, ` +
          `${r.requests} requests, heap +${r.heapMb.toFixed(1)} MB, RSS +${r.rssMb.toFixed(1)} MB\n`,
      );
    }
  }
  await client.close();
  await em.close();

  const med = (side: Side): Run => ({
    ms: median(runs[side].map((r) => r.ms)),
    pages: median(runs[side].map((r) => r.pages)),
    requests: median(runs[side].map((r) => r.requests)),
    rssMb: median(runs[side].map((r) => r.rssMb)),
    heapMb: median(runs[side].map((r) => r.heapMb)),
  });
  const fetch = med("fetch only");
  const floorMs = Math.ceil(fetch.pages / CONCURRENCY) * LATENCY_MS;
  const rows = SIDES.map((side) => {
    const r = med(side);
    return `| ${side} | ${r.requests} | ${r.ms.toFixed(0)} ms | ${(r.ms / fetch.ms).toFixed(2)} | ${r.rssMb.toFixed(1)} MB | ${r.heapMb.toFixed(1)} MB |`;
  });
  console.log(
    `\nWeekly summary of one group: ${THREADS.toLocaleString("en-US")} threads this week, ` +
      `${PREVIOUS_WEEK_THREADS.toLocaleString("en-US")} the week before; ${LATENCY_MS} ms per API answer, ` +
      `${CONCURRENCY} pages in flight (medians of ${MEASURED} runs)\n`,
  );
  console.log("| run | API requests | wall time | × fetch only | peak RSS over idle | peak heap over idle |");
  console.log("| --- | ------------ | --------- | ------------ | ------------------ | ------------------- |");
  for (const row of rows) console.log(row);
  console.log(
    `\nLatency floor: ${fetch.pages} pages × ${LATENCY_MS} ms / ${CONCURRENCY} in flight = ${floorMs} ms ` +
      `(fetch only took ${fetch.ms.toFixed(0)} ms).`,
  );

  const summary = med("summary");
  const problems: string[] = [];
  if (summary.rssMb >= MEMORY_TARGET_MB || summary.heapMb >= MEMORY_TARGET_MB) {
    problems.push(`the summary used ${Math.max(summary.rssMb, summary.heapMb).toFixed(1)} MB over idle`);
  }
  if (summary.ms > fetch.ms * 1.25 + 250) {
    problems.push(
      `the summary took ${summary.ms.toFixed(0)} ms against ${fetch.ms.toFixed(0)} ms for the fetch alone`,
    );
  }
  const overhead = summary.ms - fetch.ms;
  console.log(
    `Aggregation adds ${overhead.toFixed(0)} ms (${((overhead / summary.ms) * 100).toFixed(0)}% of the summary's time); ` +
      `the rest is waiting for the API.`,
  );
  if (problems.length > 0) {
    console.error(`Targets missed: ${problems.join("; ")}.`);
    process.exitCode = 1;
  } else {
    console.log(`Targets met: < ${MEMORY_TARGET_MB} MB over idle, time bound by the API's latency.`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
