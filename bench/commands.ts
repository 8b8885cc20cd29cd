/**
 * npm run bench:commands — how fast `/insight threads` and `/insight search` answer.
 *
 * Starts in-process the emulator (every REST answer delayed 50 ms), the stand-in Slack and
 * the whole app (web + worker + scheduler) on a random port, with a Redis of its own unless
 * REDIS_URL answers. Sends signed slash commands as Slack does and measures, per command:
 * the ack (HTTP answer to the slash command; Slack's deadline is 3 s, our target p99 < 100 ms)
 * and the full reply (the POST the app makes to the response_url). Runs sequentially and with
 * CONCURRENCY requests in flight.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.js";
import { SEED, startEmulator } from "../dev/emulator/index.js";
import { silentLogger } from "../src/log.js";
import { buildServices, closeServices } from "../src/compose/build-services.js";
import { startRoles } from "../src/compose/start-roles.js";
import { SINGLE_WORKSPACE_ID } from "../src/workspaces/workspace-id.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { redisAnswers, startThrowawayRedis, type ThrowawayRedis } from "../dev/local-redis.js";
import { postSigned, slashCommandBody } from "../test/helpers/slack-signing.js";

const LATENCY_MS = 50;
const WARMUP = 10;
const REQUESTS = 200;
const CONCURRENCY = 10;
const ACK_P99_TARGET_MS = 100;
const CHANNEL = "C0BENCH";
const SIGNING_SECRET = "bench-signing-secret-0123456789";
const COMMANDS = ["threads", "search retention per measurement"] as const;

interface Sample {
  ackMs: number;
  replyMs: number;
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
};

async function main() {
  let own: ThrowawayRedis | undefined;
  let redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  if (!(await redisAnswers(redisUrl))) {
    own = await startThrowawayRedis();
    redisUrl = own.url;
  }
  const emulator = await startEmulator();
  emulator.faults.set({ latencyMs: LATENCY_MS });
  const slack = await startSlackStandIn();
  const spoolDir = mkdtempSync(join(tmpdir(), "bench-commands-spool-"));
  const prefix = `bench-commands-${process.pid}`;
  const parsed = loadConfig({
    SLACK_BOT_TOKEN: "xoxb-bench-0000000000",
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: slack.url,
    INSIGHT_BASE_URL: emulator.baseUrl,
    INSIGHT_API_KEY: emulator.apiKey,
    WEBHOOK_SECRET: "bench-webhook-secret-0123456789",
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: "0",
    SPOOL_DIR: spoolDir,
    LOG_LEVEL: "silent",
  });
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const services = buildServices(parsed.config, silentLogger);
  const running = await startRoles(services);
  const url = `http://127.0.0.1:${running.port ?? 0}/slack/events`;
  const single = await running.workspaces.get(SINGLE_WORKSPACE_ID);
  if (!single) throw new Error("no single workspace");
  await single.subscriptions.put({
    channelId: CHANNEL,
    groupId: SEED.groups.support,
    groupName: "Lumen DB Support",
    communityId: SEED.communities.primary,
    filters: {},
    createdBy: "U0BENCH",
    createdAt: new Date().toISOString(),
  });

  let seq = 0;
  /** One command: the ack's time, then the time until its reply reached the response_url. */
  async function once(text: string): Promise<Sample> {
    const id = `bench-${++seq}`;
    const body = slashCommandBody({
      text,
      channel_id: CHANNEL,
      user_id: "U0BENCH",
      response_url: slack.responseUrl(id),
    });
    const startedWall = performance.timeOrigin + performance.now();
    const started = performance.now();
    const res = await postSigned(url, SIGNING_SECRET, body);
    const ackMs = performance.now() - started;
    if (res.status !== 200) throw new Error(`ack answered ${res.status}`);
    const reply = await slack.waitFor(() => slack.responses.find((r) => r.id === id), {
      timeoutMs: 15_000,
      intervalMs: 1,
    });
    const replyMs = reply.at - startedWall;
    const replyText = JSON.stringify(reply.body);
    if (!replyText.includes(text.startsWith("search") ? "Search:" : "Threads in")) {
      throw new Error(`unexpected reply to "${text}": ${replyText.slice(0, 200)}`);
    }
    return { ackMs, replyMs };
  }

  async function run(text: string, concurrency: number): Promise<Sample[]> {
    for (let i = 0; i < WARMUP; i++) await once(text);
    const samples: Sample[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < REQUESTS) {
          next++;
          samples.push(await once(text));
        }
      }),
    );
    return samples;
  }

  const rows: string[][] = [];
  let worstAckP99 = 0;
  for (const text of COMMANDS) {
    for (const concurrency of [1, CONCURRENCY]) {
      const s = await run(text, concurrency);
      const ack = s.map((x) => x.ackMs);
      const reply = s.map((x) => x.replyMs);
      worstAckP99 = Math.max(worstAckP99, percentile(ack, 99));
      rows.push([
        `/insight ${text.split(" ")[0] ?? text}`,
        String(concurrency),
        String(s.length),
        percentile(ack, 50).toFixed(1),
        percentile(ack, 99).toFixed(1),
        percentile(reply, 50).toFixed(0),
        percentile(reply, 99).toFixed(0),
      ]);
      process.stderr.write(`${text} x${concurrency}: done\n`);
    }
  }

  const head = ["command", "in flight", "n", "ack p50 ms", "ack p99 ms", "reply p50 ms", "reply p99 ms"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
  console.log(
    `Emulator latency ${LATENCY_MS} ms per REST call; ${REQUESTS} measured requests per row after ${WARMUP} warm-up.`,
  );
  console.log([line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n"));
  const pass = worstAckP99 < ACK_P99_TARGET_MS;
  console.log(
    `ack p99 target < ${ACK_P99_TARGET_MS} ms: ${pass ? "met" : "MISSED"} (worst ${worstAckP99.toFixed(1)} ms)`,
  );

  await running.stop();
  const keys = await services.redis.keys(`${prefix}:*`).catch((): string[] => []);
  if (keys.length > 0) await services.redis.del(...keys).catch(() => undefined);
  await closeServices(services);
  await emulator.close();
  await slack.close();
  await own?.close();
  rmSync(spoolDir, { recursive: true, force: true });
  if (!pass) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exit(1);
});
