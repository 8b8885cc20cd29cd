// npm run soak [-- --minutes 10 --rate 200 --channels 40 --sample-seconds 30 --digest-share 0.5]
//
// The whole app in a child process (ROLE=all, production timings and per-channel throttle, the
// reconciler every 60 s) under a steady open-loop load of webhook deliveries for N minutes,
// with digests flowing to the stand-in Slack. Prints the app's memory over time, the ack
// latency, and checks at the end that every thread has exactly one digest showing its latest
// enrichment: lost and duplicated digests must both be 0 (the exit code says whether they are).
// A share of the channels (half by default) follow their group in `digest` mode (24h): their
// threads wait in the pending sets; at the end each is flushed once (as `digest now` does) and
// its one batched message must count every thread of the channel, each line in its latest state.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Pool } from "undici";
import { messageEvent, SEED, startEmulator, threadEvent, type EmulatedGroup } from "../dev/emulator/index.js";
import { dropPrefix, freePort, redisAnswers, startThrowawayRedis } from "../dev/local-redis.js";
import { startSlackStandIn } from "../dev/slack-standin/server.js";
import { stateKeys } from "../src/store/keys.js";
import { SubscriptionStore } from "../src/store/subscriptions.js";
import { Redis } from "ioredis";
import { Queue } from "bullmq";
import { QUEUE_NAMES, type DigestJob } from "../src/jobs/job-types.js";
import { BATCH_EVENT_TYPE } from "../src/digest/flush.js";

const { values: args } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    rate: { type: "string", default: "200" },
    channels: { type: "string", default: "40" },
    "thread-share": { type: "string", default: "0.1" },
    "sample-seconds": { type: "string", default: "30" },
    "reconcile-seconds": { type: "string", default: "60" },
    "digest-share": { type: "string", default: "0.5" },
  },
});
const MINUTES = Number(args.minutes);
const RATE = Number(args.rate);
const CHANNELS = Number(args.channels);
const THREAD_SHARE = Number(args["thread-share"]);
const SAMPLE_S = Number(args["sample-seconds"]);
const DIGEST_SHARE = Math.min(1, Math.max(0, Number(args["digest-share"])));
const channelId = (i: number) => `C0SOAK${String(i).padStart(4, "0")}`;
/** Every k-th channel in digest mode, spread evenly: a share of 0.5 is every other one. */
const isDigestChannel = (i: number) =>
  DIGEST_SHARE > 0 && Math.floor((i + 1) * DIGEST_SHARE) > Math.floor(i * DIGEST_SHARE);
const SECRET = "soak-webhook-secret-0123456789";
const log = (s: string) => process.stderr.write(`${s}\n`);
if (!(MINUTES > 0 && RATE > 0 && CHANNELS > 0))
  throw new Error("--minutes, --rate and --channels must be positive");

interface Sample {
  atS: number;
  rssMb: number;
  /** Heap in use over the window since the previous row: the low end tracks what survives GC. */
  heapMinMb: number;
  heapMaxMb: number;
  sent: number;
  digests: number;
  slackWaiting: number;
}

interface Expected {
  channel: string;
  n: number;
  rev: number;
}

/** The app's memory is read this often; rows summarise the readings since the last row. */
const PROBE_MS = 5_000;

const marker = (n: number, rev: number) => `Soak thread ${n}, revision ${rev}.`;
const pct = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** The app's own numbers from its /metrics (prom-client default metrics and queue gauges). */
async function scrape(pool: Pool): Promise<{ rss: number; heap: number; slackWaiting: number }> {
  const res = await pool.request({ method: "GET", path: "/metrics" });
  const text = await res.body.text();
  const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
  return {
    rss: value(/^insight_relay_process_resident_memory_bytes (\S+)/m),
    heap: value(/^insight_relay_nodejs_heap_size_used_bytes (\S+)/m),
    slackWaiting:
      value(/^insight_relay_queue_jobs\{queue="slack-out",state="waiting"\} (\S+)/m) +
      value(/^insight_relay_queue_jobs\{queue="slack-out",state="delayed"\} (\S+)/m),
  };
}

function spawnApp(env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/helpers/app-process.ts"], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const timer = setTimeout(() => reject(new Error("the app did not start")), 30_000);
    // Always drained: a full pipe would stall the app.
    child.stdout?.on("data", (d: Buffer) => {
      if (process.env.SOAK_DEBUG) process.stderr.write(d);
      if (/app-ready port=/.test(d.toString())) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once("exit", (code) => reject(new Error(`the app exited ${code}`)));
  });
}

async function main(): Promise<void> {
  const wanted = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const own = (await redisAnswers(wanted)) ? undefined : await startThrowawayRedis();
  const redisUrl = own?.url ?? wanted;
  const emulator = await startEmulator({ seeded: false });
  const slack = await startSlackStandIn();
  const spool = mkdtempSync(join(tmpdir(), "soak-spool-"));
  const prefix = `soak-${process.pid}`;

  // One community, one group per channel, each followed by its channel.
  const community = emulator.store.addCommunity({ _id: SEED.communities.primary, name: "Soak community" });
  const groups: EmulatedGroup[] = [];
  const redis = new Redis(redisUrl);
  const subs = new SubscriptionStore(redis, stateKeys(prefix));
  for (let i = 0; i < CHANNELS; i++) {
    const g = emulator.store.addGroup(community._id, { name: `Soak group ${i}` });
    groups.push(g);
    await subs.put({
      channelId: channelId(i),
      groupId: g._id,
      groupName: g.name,
      communityId: community._id,
      filters: {},
      createdBy: "U0SOAK",
      createdAt: new Date().toISOString(),
      // 24h: no period ends during a soak; the end flushes each digest channel once.
      ...(isDigestChannel(i) ? { delivery: { mode: "digest" as const, every: "24h" as const } } : {}),
    });
  }

  const port = await freePort();
  const app = await spawnApp({
    ...process.env,
    SLACK_BOT_TOKEN: "xoxb-soak-token",
    SLACK_SIGNING_SECRET: "soak-signing-secret",
    SLACK_API_URL: slack.url,
    INSIGHT_BASE_URL: emulator.baseUrl,
    INSIGHT_API_KEY: emulator.apiKey,
    WEBHOOK_SECRET: SECRET,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    PORT: String(port),
    ROLE: "all",
    SPOOL_DIR: spool,
    LOG_LEVEL: "warn",
    RECONCILE_INTERVAL: args["reconcile-seconds"],
    TEST_TUNING: "{}",
  });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 64 });
  const path = `/webhooks/insight/${SECRET}`;

  const total = Math.round(RATE * MINUTES * 60);
  const lat = new Float64Array(total);
  let answered = 0;
  let non2xx = 0;
  let errors = 0;
  let inflight = 0;
  let maxInflight = 0;
  const expected = new Map<string, Expected>();
  const recent: string[][] = groups.map(() => []);
  let threads = 0;
  let messages = 0;
  let seq = 0;
  // Enrichment times strictly increase per thread, as the service's do (rule 2 orders by them).
  const lastAt = new Map<string, number>();
  const stamp = (id: string) => {
    const at = Math.max(Date.now(), (lastAt.get(id) ?? 0) + 1);
    lastAt.set(id, at);
    return new Date(at);
  };

  /** The next delivery: a new thread, a re-enrichment, or (mostly) a chat message. */
  const nextBody = (): string => {
    const gi = seq++ % groups.length;
    const group = groups[gi] as EmulatedGroup;
    const channel = `C0SOAK${String(gi).padStart(4, "0")}`;
    const own = recent[gi] as string[];
    const roll = Math.random();
    if (roll < THREAD_SHARE * 0.7 || (roll < THREAD_SHARE && own.length === 0)) {
      const n = ++threads;
      const t = emulator.store.addThread(group._id, {
        title: `Soak thread ${n}`,
        summary: marker(n, 0),
        sentiment: "neutral",
      });
      expected.set(t.id, { channel, n, rev: 0 });
      own.push(t.id);
      if (own.length > 50) own.shift();
      return JSON.stringify(threadEvent("created", group, t, stamp(t.id)));
    }
    if (roll < THREAD_SHARE) {
      const id = own[Math.floor(Math.random() * own.length)] as string;
      const e = expected.get(id) as Expected;
      e.rev++;
      const t = emulator.store.updateThread(group._id, id, {
        summary: marker(e.n, e.rev),
        sentiment: e.rev % 2 ? "positive" : "mixed",
      });
      return JSON.stringify(threadEvent("updated", group, t, stamp(id)));
    }
    messages++;
    const threadId = own[Math.floor(Math.random() * own.length)] ?? "none";
    return JSON.stringify(
      messageEvent(
        "created",
        group,
        {
          id: `soak-message-${seq}`,
          threadId,
          messageDate: new Date().toISOString(),
          messageText: "Thanks, that worked for me too.",
          isSystemMessage: false,
          isBotMessage: false,
          authorInfo: { id: `member-${seq % 97}`, handle: "member", fullName: "A Member" },
          reactions: [],
        },
        new Date(),
      ),
    );
  };

  const samples: Sample[] = [];
  const started = performance.now();
  let heaps: number[] = [];
  const probe = async () => {
    const m = await scrape(pool).catch(() => ({ rss: NaN, heap: NaN, slackWaiting: NaN }));
    if (Number.isFinite(m.heap)) heaps.push(m.heap / 1e6);
    return m;
  };
  const sample = async () => {
    const m = await probe();
    const s: Sample = {
      atS: (performance.now() - started) / 1000,
      rssMb: m.rss / 1e6,
      heapMinMb: Math.min(...heaps),
      heapMaxMb: Math.max(...heaps),
      sent: answered,
      digests: slack.posts().length,
      slackWaiting: m.slackWaiting,
    };
    heaps = [];
    samples.push(s);
    log(
      `${s.atS.toFixed(0).padStart(5)} s  rss ${s.rssMb.toFixed(0)} MB  heap ${s.heapMinMb.toFixed(0)}-${s.heapMaxMb.toFixed(0)} MB  answered ${s.sent}  digests posted ${s.digests}  slack queue ${s.slackWaiting}  in flight ${inflight}`,
    );
  };
  await sample();
  const prober = setInterval(() => void probe(), PROBE_MS);
  const sampler = setInterval(() => void sample(), SAMPLE_S * 1000);

  log(
    `soak: ${RATE} deliveries/s for ${MINUTES} min (${total} deliveries), ${CHANNELS} channels, ${(THREAD_SHARE * 100).toFixed(0)}% thread events`,
  );
  const sends: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const body = nextBody();
    const t0 = performance.now();
    inflight++;
    maxInflight = Math.max(maxInflight, inflight);
    const k = i;
    sends.push(
      pool
        .request({ method: "POST", path, headers: { "content-type": "application/json" }, body })
        .then(async (res) => {
          await res.body.dump();
          lat[k] = performance.now() - t0;
          answered++;
          if (res.statusCode < 200 || res.statusCode > 299) non2xx++;
        })
        .catch(() => {
          lat[k] = performance.now() - t0;
          errors++;
        })
        .finally(() => {
          inflight--;
        }),
    );
    if (sends.length >= 10_000) await Promise.all(sends.splice(0, 5_000));
  }
  await Promise.all(sends);
  const loadSeconds = (performance.now() - started) / 1000;
  log(`load done in ${loadSeconds.toFixed(1)} s; waiting for the digests to settle`);

  // Lost: no digest, or one not showing the latest enrichment. Duplicated: more than one.
  const digestChannels = new Set(
    groups
      .map((_, i) => i)
      .filter(isDigestChannel)
      .map(channelId),
  );
  const judge = () => {
    const byThread = new Map<string, string[]>();
    for (const m of slack.messages()) {
      const id = (m.metadata as { event_payload?: { thread_id?: string } } | undefined)?.event_payload
        ?.thread_id;
      if (id)
        byThread.set(id, [
          ...(byThread.get(id) ?? []),
          `${m.channel}\n${m.text}\n${JSON.stringify(m.blocks ?? [])}`,
        ]);
    }
    let lost = 0;
    let duplicated = 0;
    for (const [id, e] of expected) {
      if (digestChannels.has(e.channel)) continue;
      const shown = byThread.get(id) ?? [];
      if (shown.length > 1) duplicated++;
      if (!shown.some((s) => s.startsWith(`${e.channel}\n`) && s.includes(marker(e.n, e.rev)))) lost++;
    }
    return { lost, duplicated };
  };
  const settleBy = performance.now() + 180_000;
  let verdict = judge();
  while (verdict.lost > 0 && performance.now() < settleBy) {
    await new Promise((r) => setTimeout(r, 2_000));
    verdict = judge();
  }
  // A moment for any late duplicate (a reconciler pass included) to show.
  await new Promise((r) => setTimeout(r, 5_000));
  const digestVerdict = await flushAndJudgeDigests(redisUrl, prefix, redis, expected, digestChannels, slack);
  await sample();
  clearInterval(sampler);
  clearInterval(prober);
  verdict = judge();

  const sorted = lat.slice(0, total).sort();
  const edits = slack.calls.filter((c) => c.method === "chat.update" && c.ok).length;
  console.log(
    `\nsoak — ${MINUTES} min at ${RATE} deliveries/s, ${CHANNELS} channels (app in its own process, production timings)\n`,
  );
  console.log(
    "  time    app RSS   heap in use (min-max)   deliveries answered   digests posted   slack jobs waiting",
  );
  for (const s of samples) {
    console.log(
      `${`${s.atS.toFixed(0)} s`.padStart(7)} ${`${s.rssMb.toFixed(0)} MB`.padStart(9)} ${`${s.heapMinMb.toFixed(0)}-${s.heapMaxMb.toFixed(0)} MB`.padStart(23)} ${String(s.sent).padStart(21)} ${String(s.digests).padStart(16)} ${String(s.slackWaiting).padStart(20)}`,
    );
  }
  console.log(`
deliveries sent       ${total} (${(total / loadSeconds).toFixed(0)}/s achieved; ${threads} threads created, ${messages} messages)
answered non-2xx      ${non2xx}   connection errors ${errors}   most in flight ${maxInflight}
ack latency           p50 ${pct(sorted, 50).toFixed(2)} ms   p99 ${pct(sorted, 99).toFixed(2)} ms   p99.9 ${pct(sorted, 99.9).toFixed(2)} ms   max ${(sorted.at(-1) ?? 0).toFixed(1)} ms
digests               ${slack.posts().length} posted, ${edits} edits, for ${expected.size} threads
lost digests          ${verdict.lost}
duplicated digests    ${verdict.duplicated}
digest-mode channels  ${digestChannels.size} of ${CHANNELS}: ${digestVerdict.threads} threads batched, ${digestVerdict.batches} batched messages (flushed in ${digestVerdict.flushMs.toFixed(0)} ms), ${digestVerdict.linesShown} lines shown
batched: miscounted   ${digestVerdict.miscounted} channels   stale lines ${digestVerdict.stale}   extra batches ${digestVerdict.extraBatches}   left pending ${digestVerdict.leftPending}`);

  await pool.close();
  const exited = new Promise((r) => app.once("exit", r));
  app.kill("SIGKILL");
  await exited;
  await emulator.close();
  await slack.close();
  await dropPrefix(redisUrl, prefix);
  await own?.close();
  rmSync(spool, { recursive: true, force: true });
  redis.disconnect();
  const digestOk =
    digestVerdict.miscounted === 0 &&
    digestVerdict.stale === 0 &&
    digestVerdict.extraBatches === 0 &&
    digestVerdict.leftPending === 0;
  process.exitCode =
    verdict.lost === 0 && verdict.duplicated === 0 && non2xx === 0 && errors === 0 && digestOk ? 0 : 1;
}

/** The sentiment label a batched line shows for a revision (the load alternates them). */
const labelOf = (rev: number) => (rev === 0 ? "Neutral" : rev % 2 ? "Positive" : "Mixed");

/**
 * Digest-mode channels: once every delivery is routed, flush each channel (the job `digest now`
 * queues) and check its one batched message: the count in its header is the channel's number
 * of threads, each line shown is in its latest state, and nothing is left pending.
 */
async function flushAndJudgeDigests(
  redisUrl: string,
  prefix: string,
  redis: Redis,
  expected: Map<string, Expected>,
  channels: Set<string>,
  slack: Awaited<ReturnType<typeof startSlackStandIn>>,
) {
  const none = {
    threads: 0,
    batches: 0,
    linesShown: 0,
    miscounted: 0,
    stale: 0,
    extraBatches: 0,
    leftPending: 0,
    flushMs: 0,
  };
  if (channels.size === 0) return none;
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const deliveries = new Queue(QUEUE_NAMES.deliveries, { connection, prefix });
  const digest = new Queue<DigestJob>(QUEUE_NAMES.digest, { connection, prefix });
  const drainedBy = performance.now() + 120_000;
  const keys = stateKeys(prefix);
  while (performance.now() < drainedBy) {
    // The intake first: read upstream before downstream, a delivery on its way is seen.
    const intake = (await connection.llen(keys.intake)) + (await connection.llen(keys.intakeMoving));
    const c = await deliveries.getJobCounts("waiting", "active", "delayed");
    if (intake + (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const wanted = new Map<string, Expected[]>();
  for (const e of expected.values())
    if (channels.has(e.channel)) wanted.set(e.channel, [...(wanted.get(e.channel) ?? []), e]);
  const batchesOf = (ch: string) =>
    slack
      .messages(ch)
      .filter((m) => (m.metadata as { event_type?: string } | undefined)?.event_type === BATCH_EVENT_TYPE);
  const t0 = performance.now();
  for (const ch of wanted.keys()) {
    await digest.add(
      "digest-now",
      { channelId: ch, trigger: "now", requestedBy: "U0SOAK" },
      { jobId: `soak-flush|${ch}` },
    );
  }
  const doneBy = performance.now() + 120_000;
  while (performance.now() < doneBy && [...wanted.keys()].some((ch) => batchesOf(ch).length === 0)) {
    await new Promise((r) => setTimeout(r, 250));
  }
  const flushMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 2_000));
  const v = { ...none, flushMs };
  for (const [ch, threads] of wanted) {
    v.threads += threads.length;
    const batches = batchesOf(ch);
    v.batches += batches.length;
    v.extraBatches += Math.max(0, batches.length - 1);
    const m = batches[0];
    const header = /Digest: ([\d,]+) thread/.exec(m?.text ?? "");
    if (Number((header?.[1] ?? "0").replace(/,/g, "")) !== threads.length) v.miscounted++;
    const texts = (m?.blocks ?? []).map((b) => JSON.stringify(b)).join("\n");
    const byN = new Map(threads.map((e) => [e.n, e]));
    for (const line of texts.matchAll(/\*Soak thread (\d+)\*\\n(\w+)/g)) {
      v.linesShown++;
      const e = byN.get(Number(line[1]));
      if (!e || line[2] !== labelOf(e.rev)) v.stale++;
    }
    // Shown records (`s|…` fields) stay by design; pending threads are the other fields.
    v.leftPending += (await redis.hkeys(keys.digestPending(ch))).filter((f) => !f.startsWith("s|")).length;
  }
  await deliveries.close();
  await digest.close();
  connection.disconnect();
  return v;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.stack : String(err));
  process.exit(1);
});
