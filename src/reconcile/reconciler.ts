import { isInsightError } from "../insight/errors.js";
import { threadEventSchema, type Thread, type ThreadEvent } from "../insight/schemas.js";
import { matchesFilters } from "../domain/filters.js";
import { buildThreadDigest } from "../domain/thread-digest.js";
import { routeThreadEvent, type RouteDeps } from "../jobs/route-thread-event.js";
import { debugOnFailure } from "../log.js";
import type { RedisClient as Redis } from "../store/redis.js";
import type { InsightClient } from "../insight/client.js";
import type { Logger } from "../log.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import type { ReportInsightError } from "../ops/report-insight-error.js";
import type { DeliveryHealthStore } from "../store/delivery-health.js";
import type { StateKeys } from "../store/keys.js";
import { tryLock } from "../store/lock.js";
import type { MessageRefStore } from "../store/message-refs.js";
import type { Subscription, SubscriptionStore } from "../store/subscriptions.js";
import { BaselineStore, type GroupBaseline } from "./baseline-store.js";
import {
  decideThread,
  nextEntry,
  type BaselineEntry,
  type Decision,
  type ShownDigest,
  type ThreadSnapshot,
} from "./decide-thread.js";
import { enrichmentFingerprint, threadLastActivityMs, threadStartMs } from "./fingerprint.js";
import { ListingLookup } from "./listing-lookup.js";
import { reconcileStatusKey } from "./reconcile-status.js";
import {
  communityOf,
  lastDeliveryFor,
  readDeliveryClock,
  stepSilenceIncidents,
  type CommunityTally,
} from "./silence-steps.js";

export interface ReconcilerDeps {
  /** RECONCILE_INTERVAL, in seconds. */
  intervalSeconds: number;
  redis: Redis;
  keys: StateKeys;
  subscriptions: Pick<SubscriptionStore, "all">;
  insight: Pick<InsightClient, "listThreads">;
  refs: Pick<MessageRefStore, "get">;
  health: Pick<DeliveryHealthStore, "lastDeliveries" | "lastThreadDeliveries">;
  /**
   * The deployment's intake: deliveries acknowledged whose receipt the intake pump has not
   * recorded yet count as deliveries of every community (they may be any one's).
   */
  intake: Pick<StateKeys, "intake" | "intakeMoving">;
  ops: Pick<OpsNotifier, "open" | "alert" | "resolve">;
  /** The digest path changes go through, as webhooks do (its lookup is the reconciler's own). */
  route: Omit<RouteDeps, "lookup">;
  reportInsightError: ReportInsightError;
  logger: Logger;
}

export interface ReconcilerOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * How long to wait, before calling deliveries silent, for a webhook that may be in flight
   * (the service gives up on a delivery after 10 s). Default: 15 s, at most half the interval.
   */
  settleMs?: number;
  /** Newest pages read per group (100 threads each). Default 1. */
  pages?: number;
  /** The run lock's lifetime, should a process die holding it. Default: 2 intervals, 1 to 30 min. */
  lockTtlMs?: number;
}

export interface GroupRunReport {
  groupId: string;
  outcome: "baseline" | "read" | "failed";
  listed: number;
  sent: number;
  deferred: number;
  error?: string;
}

export interface ReconcileRunReport {
  /** false when another process's run held the lock. */
  ran: boolean;
  groups: GroupRunReport[];
  sent: number;
  deferred: number;
  /** Sent because nothing at all was delivered since the change: the silence evidence. */
  silentSends: number;
  incident: "opened" | "closed" | undefined;
}

interface ThreadItem {
  thread: Thread;
  snapshot: ThreadSnapshot;
  wanting: Subscription[];
  decision: Decision;
  shownAnywhere: boolean;
}

interface GroupPlan {
  groupId: string;
  subs: Subscription[];
  base: GroupBaseline;
  readMs: number;
  listed: Map<string, Thread>;
  items: ThreadItem[];
  report: GroupRunReport;
}

/**
 * Rule 9: every RECONCILE_INTERVAL the newest threads of each followed group are compared
 * with the previous reading; changes that no delivery explains go through the same digest
 * path as webhooks (routeThreadEvent), and a "webhook-silence" incident is opened or closed
 * per community. How each thread is judged, and why the synthesised timestamps are safe, is in
 * decide-thread.ts.
 */
export class Reconciler {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly settleMs: number;
  private readonly pages: number;
  private readonly lockTtlMs: number;
  private readonly baselines: BaselineStore;
  private readonly intervalMs: number;

  constructor(
    private readonly deps: ReconcilerDeps,
    opts: ReconcilerOptions = {},
  ) {
    const intervalMs = deps.intervalSeconds * 1000;
    this.intervalMs = intervalMs;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.settleMs = opts.settleMs ?? Math.min(15_000, intervalMs / 2);
    this.pages = Math.max(1, opts.pages ?? 1);
    this.lockTtlMs = opts.lockTtlMs ?? Math.min(30 * 60_000, Math.max(60_000, 2 * intervalMs));
    this.baselines = new BaselineStore(deps.redis, deps.keys);
  }

  /** One reconcile pass; does nothing while another process's pass holds the lock. */
  async run(): Promise<ReconcileRunReport> {
    const release = await tryLock(this.deps.redis, this.deps.keys.lock("reconcile"), this.lockTtlMs);
    if (!release) {
      return { ran: false, groups: [], sent: 0, deferred: 0, silentSends: 0, incident: undefined };
    }
    try {
      return await this.runLocked();
    } finally {
      // The lock expires by itself (lockTtlMs): a failed release only delays the next run.
      await release().catch(debugOnFailure(this.deps.logger, "reconciler: could not release its lock"));
    }
  }

  private async runLocked(): Promise<ReconcileRunReport> {
    const { subscriptions, logger } = this.deps;
    const started = this.now();
    const byGroup = new Map<string, Subscription[]>();
    for (const s of await subscriptions.all()) {
      if (s.paused) continue;
      byGroup.set(s.groupId, [...(byGroup.get(s.groupId) ?? []), s]);
    }
    // A group nobody follows (any more) is forgotten: following it again starts a new baseline.
    for (const g of await this.baselines.groups()) if (!byGroup.has(g)) await this.baselines.drop(g);

    let clock = await readDeliveryClock(this.deps);
    const plans: GroupPlan[] = [];
    for (const [groupId, subs] of byGroup) {
      plans.push(await this.readGroup(groupId, subs, lastDeliveryFor(clock, communityOf(subs))));
    }

    // Nothing delivered since a change: wait out a delivery that may be in flight, then look again.
    const silentItems = () =>
      plans.flatMap((p) =>
        p.items
          .filter((i) => i.decision.action === "send" && i.decision.reason === "silence")
          .map((i) => ({ p, i })),
      );
    if (silentItems().length > 0 && this.settleMs > 0) {
      await this.sleep(this.settleMs);
      clock = await readDeliveryClock(this.deps);
      for (const { p, i } of silentItems()) {
        const lastDeliveryMs = lastDeliveryFor(clock, communityOf(p.subs));
        const again = await this.decide(p, i.thread, i.snapshot, i.wanting, lastDeliveryMs);
        i.decision = again.decision;
        i.shownAnywhere = again.shownAnywhere;
      }
    }

    const tallies = new Map<string, CommunityTally>();
    for (const p of plans) {
      if (p.report.outcome === "failed") continue;
      const community = communityOf(p.subs);
      const tally = tallies.get(community) ?? { silentSends: 0, sent: 0, groupNames: new Set<string>() };
      tallies.set(community, tally);
      for (const item of p.items) {
        const d = item.decision;
        if (d.action === "defer") p.report.deferred++;
        if (d.action !== "send") continue;
        await routeThreadEvent(this.eventFor(p, item, d.timestampMs), this.routeDeps(p.listed));
        p.report.sent++;
        tally.sent++;
        if (d.reason === "silence") {
          tally.silentSends++;
          tally.groupNames.add(p.subs[0]?.groupName || p.groupId);
        }
        logger.info(
          { groupId: p.groupId, threadId: item.thread.id, reason: d.reason, timestamp: d.timestampMs },
          "reconciler: sending a digest no delivery brought",
        );
      }
      await this.saveBaseline(p);
    }

    const report: ReconcileRunReport = {
      ran: true,
      groups: plans.map((p) => p.report),
      sent: plans.reduce((n, p) => n + p.report.sent, 0),
      deferred: plans.reduce((n, p) => n + p.report.deferred, 0),
      silentSends: [...tallies.values()].reduce((n, t) => n + t.silentSends, 0),
      incident: undefined,
    };
    report.incident = await stepSilenceIncidents(this.deps, { clock, tallies, nowMs: this.now() });
    await this.writeStatus(report, started);
    return report;
  }

  private async readGroup(
    groupId: string,
    subs: Subscription[],
    lastDeliveryMs: number | undefined,
  ): Promise<GroupPlan> {
    const base = await this.baselines.load(groupId);
    const readMs = this.now();
    const report: GroupRunReport = { groupId, outcome: "read", listed: 0, sent: 0, deferred: 0 };
    const plan: GroupPlan = { groupId, subs, base, readMs, listed: new Map(), items: [], report };
    try {
      for (let page = 1; page <= this.pages; page++) {
        const res = await this.deps.insight.listThreads(groupId, {
          page,
          limit: 100,
          sort: "desc",
          range: "allTime",
        });
        for (const t of res.data) if (!plan.listed.has(t.id)) plan.listed.set(t.id, t);
        if (res.data.length < 100 || (res.pagination && page >= res.pagination.totalPages)) break;
      }
    } catch (err) {
      report.outcome = "failed";
      report.error = isInsightError(err) ? err.code : "error";
      await this.deps.reportInsightError(err);
      this.deps.logger.warn(
        { groupId, code: report.error },
        "reconciler: could not read the group's threads; trying again next interval",
      );
      return plan;
    }
    report.listed = plan.listed.size;
    if (!base.meta) {
      report.outcome = "baseline";
      return plan;
    }
    for (const thread of plan.listed.values()) {
      const snapshot: ThreadSnapshot = {
        fingerprint: enrichmentFingerprint(thread),
        hasSentiment: typeof thread.sentiment === "string" && thread.sentiment.trim() !== "",
        startMs: threadStartMs(thread),
        lastActivityMs: threadLastActivityMs(thread),
      };
      const entry = base.entries.get(thread.id);
      if (entry && entry.f === snapshot.fingerprint && entry.pending === undefined) {
        plan.items.push({
          thread,
          snapshot,
          wanting: [],
          decision: { action: "unchanged" },
          shownAnywhere: false,
        });
        continue;
      }
      const digest = buildThreadDigest(this.eventFor(plan, undefined, readMs, thread), thread);
      const wanting = subs.filter((s) => matchesFilters(digest, s.filters));
      const { decision, shownAnywhere } = await this.decide(plan, thread, snapshot, wanting, lastDeliveryMs);
      plan.items.push({ thread, snapshot, wanting, decision, shownAnywhere });
    }
    return plan;
  }

  private async decide(
    plan: GroupPlan,
    thread: Thread,
    snapshot: ThreadSnapshot,
    wanting: Subscription[],
    lastDeliveryMs: number | undefined,
  ): Promise<{ decision: Decision; shownAnywhere: boolean }> {
    const meta = plan.base.meta;
    if (!meta) return { decision: { action: "unchanged" }, shownAnywhere: false };
    const refs = await Promise.all(wanting.map((s) => this.deps.refs.get(s.channelId, thread.id)));
    const shown = refs.map((r): ShownDigest | undefined =>
      r ? { enrichedAtMs: r.enrichedAtMs, hasSentiment: r.hasSentiment } : undefined,
    );
    const decision = decideThread({
      entry: plan.base.entries.get(thread.id),
      thread: snapshot,
      shown,
      previousReadMs: meta.readAt,
      baselineMs: meta.startedAt,
      lastDeliveryMs,
      readMs: plan.readMs,
      late: plan.readMs - meta.readAt > 2 * this.intervalMs,
    });
    return { decision, shownAnywhere: refs.some(Boolean) };
  }

  /** A chatthread-crud event for a listed thread; the listing fills in everything but the ids. */
  private eventFor(
    plan: GroupPlan,
    item: ThreadItem | undefined,
    timestampMs: number,
    thread: Thread | undefined = item?.thread,
  ): ThreadEvent {
    const sub = plan.subs.find((s) => s.communityId) ?? plan.subs[0];
    return threadEventSchema.parse({
      webhookType: "chatthread-crud",
      actionType: item?.shownAnywhere ? "updated" : "created",
      payload: {
        communityId: sub?.communityId || plan.groupId,
        timestamp: new Date(timestampMs).toISOString(),
        threadId: thread?.id ?? "",
        groupId: plan.groupId,
        ...(sub?.groupName ? { groupName: sub.groupName } : {}),
      },
    });
  }

  private routeDeps(listed: Map<string, Thread>): RouteDeps {
    return { ...this.deps.route, lookup: new ListingLookup(this.deps.insight, listed) };
  }

  private async saveBaseline(p: GroupPlan): Promise<void> {
    const entries = new Map<string, BaselineEntry>(p.base.entries);
    const changed: string[] = [];
    if (p.report.outcome === "baseline") {
      for (const t of p.listed.values()) {
        entries.set(t.id, { f: enrichmentFingerprint(t), seen: p.readMs });
        changed.push(t.id);
      }
      await this.baselines.save(
        p.groupId,
        { startedAt: p.readMs, readAt: p.readMs },
        entries,
        changed,
        new Set(),
      );
      return;
    }
    for (const item of p.items) {
      const id = item.thread.id;
      entries.set(id, nextEntry(item.snapshot, item.decision, p.readMs, p.base.entries.get(id)));
      changed.push(id);
    }
    const startedAt = p.base.meta?.startedAt ?? p.readMs;
    await this.baselines.save(
      p.groupId,
      { startedAt, readAt: p.readMs },
      entries,
      changed,
      new Set(p.listed.keys()),
    );
  }

  private async writeStatus(report: ReconcileRunReport, started: number): Promise<void> {
    const failed = report.groups.filter((g) => g.outcome === "failed");
    const key = reconcileStatusKey(this.deps.keys);
    await this.deps.redis
      .multi()
      .hset(key, {
        lastRunAt: new Date(started).toISOString(),
        lastRunMs: String(this.now() - started),
        groupsRead: String(report.groups.length - failed.length),
        groupsFailed: String(failed.length),
        lastError: failed.at(-1)?.error ?? "",
        sentLastRun: String(report.sent),
        deferredLastRun: String(report.deferred),
      })
      .hincrby(key, "sentTotal", report.sent)
      .exec();
  }
}
