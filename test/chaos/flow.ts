import { messageText, type Harness } from "../helpers/app-harness.js";
import { digestsOf, waitUntil } from "../reconcile/support.js";

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
