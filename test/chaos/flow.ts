import { Redis } from "ioredis";
import { request } from "undici";
import { SEED } from "../../dev/emulator/index.js";
import {
  messageText,
  OPS_CHANNEL,
  startHarness,
  TEST_CHANNEL,
  type Harness,
} from "../helpers/app-harness.js";
import { startOwnRedis, type OwnRedis } from "../helpers/redis-server.js";
import { digestsOf, follow, waitUntil } from "../reconcile/support.js";

/** Where the flow's threads live and which channel follows that group. */
export interface FlowTarget {
  groupId: string;
  channel: string;
}

export interface FlowThread {
  id: string;
  groupId: string;
  channel: string;
  n: number;
  /** The latest enrichment's revision: the digest must show it in the end. */
  rev: number;
}

/** A chaos row's rig: an app on a Redis of its own, an admin connection to that Redis, two channels following two groups. */
export interface ChaosRig {
  redis: OwnRedis;
  admin: Redis;
  h: Harness;
  targets: FlowTarget[];
  stop(): Promise<void>;
}

/**
 * Starts the rig the Redis fault rows share: the reconciler every 3 s, the emulator's webhook
 * timeout 10 s (the acknowledgement's budget), the health watch every 0.5 s.
 */
export async function startChaosRig(): Promise<ChaosRig> {
  const redis = await startOwnRedis();
  const admin = new Redis(redis.url);
  const h = await startHarness({
    redisUrl: redis.url,
    env: { RECONCILE_INTERVAL: "3" },
    emulator: { webhookTimeoutMs: 10_000 },
    tuning: { healthWatchMs: 500 },
  });
  const targets: FlowTarget[] = [
    { groupId: SEED.groups.support, channel: TEST_CHANNEL },
    { groupId: SEED.groups.contributors, channel: "C0CHAOSTWO" },
  ];
  for (const t of targets) await follow(h, t.groupId, t.channel);
  return {
    redis,
    admin,
    h,
    targets,
    stop: async () => {
      admin.disconnect();
      await h.stop();
      await redis.close();
    },
  };
}

const SENTIMENTS = ["positive", "negative", "neutral", "mixed"];
export const marker = (n: number, rev: number) => `Flow marker ${n} revision ${rev}.`;

/**
 * Digests flowing through the whole app: the emulator creates and re-enriches threads and sends
 * the webhooks, as the service would, at a steady rate. Everything it did is kept, so the test
 * can check at the end that each thread has exactly one digest showing its latest enrichment.
 */
export class DigestFlow {
  readonly threads = new Map<string, FlowThread>();
  readonly errors: string[] = [];
  private n = 0;
  private seed = 7;
  private timer: NodeJS.Timeout | undefined;
  private busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly h: Harness,
    private readonly targets: FlowTarget[],
  ) {}

  /** Deterministic pseudo-random numbers, so a failing run can be replayed. */
  private rand(): number {
    this.seed = (this.seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return this.seed / 2_147_483_648;
  }

  start(perSecond: number): void {
    this.timer = setInterval(() => {
      // One step at a time: the emulator stamps enrichments with its clock, in order.
      this.busy = this.busy.then(() => this.step()).catch((e: unknown) => void this.errors.push(String(e)));
    }, 1000 / perSecond);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.busy;
  }

  /** Runs for `ms` at `perSecond`, then stops. */
  async runFor(ms: number, perSecond: number): Promise<void> {
    this.start(perSecond);
    await new Promise((r) => setTimeout(r, ms));
    await this.stop();
  }

  async step(): Promise<void> {
    const existing = [...this.threads.values()];
    if (existing.length > 3 && this.rand() < 0.3) {
      const t = existing[Math.floor(this.rand() * existing.length)];
      if (!t) return;
      t.rev++;
      await this.h.emulator.enrichThread(t.groupId, t.id, {
        summary: marker(t.n, t.rev),
        sentiment: SENTIMENTS[t.rev % SENTIMENTS.length],
      });
      return;
    }
    const n = ++this.n;
    const target = this.targets[n % this.targets.length];
    if (!target) return;
    const { thread } = await this.h.emulator.createThread(target.groupId, {
      title: `Flow thread ${n}`,
      summary: marker(n, 0),
      sentiment: SENTIMENTS[n % SENTIMENTS.length],
    });
    this.threads.set(thread.id, {
      id: thread.id,
      groupId: target.groupId,
      channel: target.channel,
      n,
      rev: 0,
    });
  }
}

export interface FlowVerdict {
  threads: number;
  /** Threads with no digest, or whose digest does not show the latest enrichment. */
  lost: string[];
  /** Threads with more than one digest message. */
  duplicated: string[];
  /** Threads whose digest still lacks the sentiment the listing has (when required). */
  withoutSentiment: string[];
  /** Webhook deliveries the app did not answer 2xx (each would have disabled the webhook). */
  refusedDeliveries: string[];
  webhookDisabled: boolean;
}

function judge(
  h: Harness,
  flow: DigestFlow,
  o: { sentiment: boolean },
  refs: Map<string, boolean>,
): FlowVerdict {
  const lost: string[] = [];
  const duplicated: string[] = [];
  const withoutSentiment: string[] = [];
  for (const t of flow.threads.values()) {
    const msgs = digestsOf(h, t.id, t.channel);
    if (msgs.length > 1) duplicated.push(t.id);
    if (!msgs.some((m) => messageText(m).includes(marker(t.n, t.rev)))) lost.push(t.id);
    if (o.sentiment && refs.get(t.id) !== true) withoutSentiment.push(t.id);
  }
  const refused = h.emulator.webhooks
    .deliveries()
    .filter((d) => !d.ok)
    .map((d) => `${d.webhookType}: ${d.error ?? d.status ?? "?"}`);
  return {
    threads: flow.threads.size,
    lost,
    duplicated,
    withoutSentiment,
    refusedDeliveries: refused,
    webhookDisabled: h.emulator.webhooks.list().some((w) => w.state === "disabled"),
  };
}

/**
 * Waits until every thread's digest shows its latest enrichment (and, with `sentiment`, its
 * sentiment), or the time is up; then gives a moment for any late duplicate to appear and
 * returns what it found.
 */
export async function settleFlow(
  h: Harness,
  flow: DigestFlow,
  o: { timeoutMs: number; sentiment?: boolean },
): Promise<FlowVerdict> {
  const sentiment = o.sentiment ?? false;
  const refs = new Map<string, boolean>();
  const readRefs = async () => {
    if (!sentiment) return;
    for (const t of flow.threads.values()) {
      refs.set(t.id, (await h.workspace.refs.get(t.channel, t.id))?.hasSentiment === true);
    }
  };
  await waitUntil(async () => {
    await readRefs();
    const v = judge(h, flow, { sentiment }, refs);
    return v.lost.length === 0 && v.withoutSentiment.length === 0;
  }, o.timeoutMs);
  await new Promise((r) => setTimeout(r, 1_500));
  await readRefs();
  return judge(h, flow, { sentiment }, refs);
}

/** /readyz polled all through a fault: each answer's status and how long it took (bounded). */
export class ReadinessWatch {
  readonly seen: { at: number; status: number; ms: number; body: string }[] = [];
  private polling = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly baseUrl: string,
    everyMs = 250,
  ) {
    this.done = (async () => {
      while (this.polling) {
        const t = performance.now();
        let status = 0;
        let body = "";
        try {
          const res = await request(`${this.baseUrl}/readyz`, { headersTimeout: 3_000, bodyTimeout: 3_000 });
          status = res.statusCode;
          body = await res.body.text();
        } catch (err) {
          body = String(err);
        }
        this.seen.push({ at: Date.now(), status, ms: performance.now() - t, body });
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
  }

  /** Waits (up to `timeoutMs`) for a 200 after the last answer that was not, then stops polling. */
  async stopOnceReady(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.seen.at(-1)?.status !== 200 && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    this.polling = false;
    await this.done;
  }

  get slowestMs(): number {
    return Math.max(0, ...this.seen.map((s) => s.ms));
  }

  /** How long after `faultAt` readiness was back for good (undefined: it never left 200). */
  backAfterMs(faultAt: number): number | undefined {
    const lastBad = this.seen.findLastIndex((s) => s.status !== 200);
    if (lastBad < 0) return undefined;
    const back = this.seen[lastBad + 1];
    return back ? back.at - faultAt : Infinity;
  }

  /** Time not ready, summed over the polls. */
  notReadyMs(): number {
    let ms = 0;
    for (let i = 1; i < this.seen.length; i++) {
      const prev = this.seen[i - 1];
      const cur = this.seen[i];
      if (prev && cur && prev.status !== 200) ms += cur.at - prev.at;
    }
    return ms;
  }

  /** The reasons readiness gave while not ready, each once. */
  reasons(): string[] {
    return [...new Set(this.seen.filter((s) => s.status !== 200).map((s) => s.body))];
  }
}

/** One row of the fault matrix, as the closing note quotes it. */
export interface RowFigures {
  row: string;
  deliveries: number;
  ok: number;
  slowestAckMs: number;
  threads: number;
  /** Threads whose digest is there once, showing its latest enrichment. */
  digests: number;
  lost: number;
  duplicated: number;
  /** From the fault to readiness back for good; undefined: readiness never left 200. */
  readinessBackMs: number | undefined;
  notReadyMs: number;
  slowestReadyzMs: number;
  /** What /readyz said while not ready: each failing check's words, once. */
  notReadyBecause: string[];
  /** What the ops channel was told during the row. */
  ops: string[];
}

/** The row's figures from its flow's verdict, the deliveries since `deliveriesBefore` and the readiness polls. */
export function rowFigures(
  row: string,
  h: Harness,
  v: FlowVerdict,
  deliveriesBefore: number,
  readiness: ReadinessWatch,
  faultAt: number,
  opsBefore = 0,
): RowFigures {
  const deliveries = h.emulator.webhooks.deliveries().slice(deliveriesBefore);
  const because = new Set<string>();
  for (const body of readiness.reasons()) {
    try {
      const { checks } = JSON.parse(body) as { checks: Record<string, string> };
      for (const reason of Object.values(checks)) if (reason !== "ok") because.add(reason.slice(0, 60));
    } catch {
      because.add(body.slice(0, 60));
    }
  }
  return {
    row,
    deliveries: deliveries.length,
    ok: deliveries.filter((d) => d.ok).length,
    slowestAckMs: Math.max(0, ...deliveries.map((d) => d.ms)),
    threads: v.threads,
    digests: v.threads - new Set([...v.lost, ...v.duplicated]).size,
    lost: v.lost.length,
    duplicated: v.duplicated.length,
    readinessBackMs: readiness.backAfterMs(faultAt),
    notReadyMs: readiness.notReadyMs(),
    slowestReadyzMs: Math.round(readiness.slowestMs),
    notReadyBecause: [...because],
    ops: h.slack
      .messages(OPS_CHANNEL)
      .slice(opsBefore)
      .map((m) => m.text.slice(0, 60)),
  };
}

/** Prints a row on one line (the test's output is what the closing note quotes). */
export function printRow(f: RowFigures): void {
  const readiness =
    f.readinessBackMs === undefined
      ? "ready throughout"
      : `not ready ${(f.notReadyMs / 1000).toFixed(1)} s, back ${(f.readinessBackMs / 1000).toFixed(1)} s after the fault`;
  console.log(
    `fault matrix | ${f.row} | deliveries ${f.deliveries} | 2xx ${f.ok} | slowest ack ${f.slowestAckMs} ms | ` +
      `digests ${f.digests} of ${f.threads} | lost ${f.lost} | duplicated ${f.duplicated} | ${readiness} | ` +
      `slowest /readyz ${f.slowestReadyzMs} ms | readyz said ${JSON.stringify(f.notReadyBecause)} | ` +
      `ops channel ${JSON.stringify(f.ops)}`,
  );
}

export interface FaultRow {
  figures: RowFigures;
  verdict: FlowVerdict;
  readiness: ReadinessWatch;
  errors: string[];
}

/**
 * One row of the fault matrix: digests flow (`perSecond`, default 4) to `targets`; the fault
 * comes `leadMs` in (default 2 s), and the flow goes on `tailMs` after it (default 2 s); then
 * everything must settle within `settleMs` (default 60 s), and readiness come back. Prints the
 * row's figures.
 */
export async function faultRow(
  h: Harness,
  targets: FlowTarget[],
  name: string,
  fault: () => Promise<unknown>,
  o: {
    perSecond?: number;
    leadMs?: number;
    tailMs?: number;
    settleMs?: number;
    sentiment?: boolean;
    /** How often /readyz is asked (default 250 ms). */
    readyzEveryMs?: number;
  } = {},
): Promise<FaultRow> {
  const flow = new DigestFlow(h, targets);
  const before = h.emulator.webhooks.deliveries().length;
  const opsBefore = h.slack.messages(OPS_CHANNEL).length;
  const readiness = new ReadinessWatch(h.baseUrl, o.readyzEveryMs);
  flow.start(o.perSecond ?? 4);
  await new Promise((r) => setTimeout(r, o.leadMs ?? 2_000));
  const faultAt = Date.now();
  await fault();
  await new Promise((r) => setTimeout(r, o.tailMs ?? 2_000));
  await flow.stop();
  const verdict = await settleFlow(h, flow, { timeoutMs: o.settleMs ?? 60_000, sentiment: o.sentiment });
  await readiness.stopOnceReady(30_000);
  const figures = rowFigures(name, h, verdict, before, readiness, faultAt, opsBefore);
  printRow(figures);
  return { figures, verdict, readiness, errors: flow.errors };
}

/** Deliveries answered after going to the spool (`insight_relay_webhook_acks_total{outcome="spooled"}`). */
export const spooledAcks = async (h: Harness): Promise<number> =>
  (await h.services.metrics.acks.get()).values.find((v) => v.labels.outcome === "spooled")?.value ?? 0;
