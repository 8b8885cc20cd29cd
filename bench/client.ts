/**
 * npm run bench:client — the Insight client's page walk against a plain undici loop.
 *
 * Starts the emulator in-process with a 10,000-thread group, then walks every page at
 * limit=100 twice over: with InsightClient.threadPages (validation, retries, timeouts, zod
 * parsing, metrics) and with a bare undici `request` loop on an identical pool that only
 * JSON.parses. Each side runs 1 warm-up + 3 measured times; the table shows medians.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Pool } from "undici";
import { startEmulator, SEED } from "../dev/emulator/index.js";
import { InsightClient } from "../src/insight/client.js";
import { createMetrics } from "../src/metrics.js";

const THREADS = 10_000;
const LIMIT = 100;
const CONNECTIONS = 16;
const WARMUP = 1;
const MEASURED = 3;

interface Run {
  ms: number;
  pages: number;
  threads: number;
  peakRssMb: number;
  heapDeltaMb: number;
}
type Walk = () => Promise<{ pages: number; threads: number }>;

// A callable gc without restarting node under --expose-gc, so runs start from the same heap.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const mb = (bytes: number) => bytes / 1024 / 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function measure(walk: Walk): Promise<Run> {
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let peakRss = process.memoryUsage().rss;
  let peakHeap = heapBefore;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  }, 5);
  const started = performance.now();
  const { pages, threads } = await walk();
  const ms = performance.now() - started;
  clearInterval(sampler);
  const m = process.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed);
  return { ms, pages, threads, peakRssMb: mb(peakRss), heapDeltaMb: mb(peakHeap - heapBefore) };
}

function summarise(runs: Run[]): Run {
  return {
    ms: median(runs.map((r) => r.ms)),
    pages: median(runs.map((r) => r.pages)),
    threads: median(runs.map((r) => r.threads)),
    peakRssMb: median(runs.map((r) => r.peakRssMb)),
    heapDeltaMb: median(runs.map((r) => r.heapDeltaMb)),
  };
}

/** Rounds of both walks, the order alternating, so neither side always runs on the warmer process. */
async function compare(
  walks: Record<"client" | "baseline", Walk>,
): Promise<Record<"client" | "baseline", Run>> {
  const runs: Record<"client" | "baseline", Run[]> = { client: [], baseline: [] };
  for (let round = 0; round < WARMUP + MEASURED; round++) {
    const order = round % 2 === 0 ? (["baseline", "client"] as const) : (["client", "baseline"] as const);
    for (const name of order) {
      const r = await measure(walks[name]);
      if (r.threads !== THREADS) throw new Error(`${name}: walked ${r.threads} threads, expected ${THREADS}`);
      if (round >= WARMUP) runs[name].push(r);
      const label = round < WARMUP ? "warm-up" : `run ${round - WARMUP + 1}`;
      process.stderr.write(`${name.padEnd(8)} ${label}: ${r.ms.toFixed(0)} ms, ${r.pages} pages\n`);
    }
  }
  return { client: summarise(runs.client), baseline: summarise(runs.baseline) };
}

function table(client: Run, baseline: Run): string {
  const rps = (r: Run) => r.pages / (r.ms / 1000);
  const rows: Array<[string, (r: Run) => number, number]> = [
    ["requests/s", rps, 0],
    ["total time (ms)", (r) => r.ms, 0],
    ["pages", (r) => r.pages, 0],
    ["threads", (r) => r.threads, 0],
    ["peak RSS (MB)", (r) => r.peakRssMb, 1],
    ["heap delta (MB)", (r) => r.heapDeltaMb, 1],
  ];
  const head = ["metric", "client", "baseline", "client/baseline"];
  const body = rows.map(([label, f, digits]) => {
    const a = f(client);
    const b = f(baseline);
    return [label, a.toFixed(digits), b.toFixed(digits), b === 0 ? "-" : (a / b).toFixed(2)];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

async function main() {
  const emulator = await startEmulator({ seed: 1 });
  const group = emulator.store.addGroup(SEED.communities.primary, { name: "Bench: 10k threads" });
  emulator.store.addThreads(group._id, THREADS);

  const client = new InsightClient({
    baseUrl: emulator.baseUrl,
    apiKey: emulator.apiKey,
    connections: CONNECTIONS,
    metrics: createMetrics(),
  });
  const viaClient: Walk = async () => {
    let pages = 0;
    let threads = 0;
    for await (const page of client.threadPages(group._id)) {
      pages++;
      threads += page.data.length;
    }
    return { pages, threads };
  };

  // The baseline: the same pool settings, the same requests, JSON.parse and nothing else.
  const pool = new Pool(emulator.baseUrl, { connections: CONNECTIONS });
  const path = `/api/v1/chatgroup/${encodeURIComponent(group._id)}/displaychatthread`;
  const viaUndici: Walk = async () => {
    let pages = 0;
    let threads = 0;
    for (let page = 1; ; page++) {
      const res = await pool.request({
        method: "GET",
        path: `${path}?page=${page}&limit=${LIMIT}`,
        headers: { "x-api-key": emulator.apiKey, accept: "application/json" },
      });
      const body = JSON.parse(await res.body.text()) as {
        data: unknown[];
        pagination?: { totalPages: number };
      };
      pages++;
      threads += body.data.length;
      if (body.data.length === 0 || page >= (body.pagination?.totalPages ?? 0)) break;
    }
    return { pages, threads };
  };

  try {
    const result = await compare({ client: viaClient, baseline: viaUndici });
    console.log(
      `\nWalk of ${THREADS} threads at limit=${LIMIT}, emulator in-process, ${CONNECTIONS}-connection keep-alive pool; ` +
        `median of ${MEASURED} runs after ${WARMUP} warm-up (Node ${process.version}).\n`,
    );
    console.log(table(result.client, result.baseline));
  } finally {
    await client.close();
    await pool.close();
    await emulator.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
