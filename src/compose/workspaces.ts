import type { Logger } from "../log.js";
import { AsyncLocalStorage } from "node:async_hooks";
import { join } from "node:path";
import type { Processor } from "bullmq";
import { InsightClient } from "../insight/client.js";
import type { Queues } from "../jobs/queue-registry.js";
import { ThreadLookup } from "../jobs/thread-lookup.js";
import { OpsNotifier } from "../ops/ops-notifier.js";
import { insightErrorReporter } from "../ops/report-insight-error.js";
import { createSlackApi } from "../slack/client.js";
import { MethodHold } from "../slack/outbound/method-hold.js";
import { createSlackSender } from "../slack/outbound/slack-sender.js";
import { workspaceStateKeys } from "../store/keys.js";
import { isCluster } from "../store/redis.js";
import { jobId } from "../jobs/job-types.js";
import { SHARD_KEYS } from "../jobs/queue-layout.js";
import { fairQueue } from "../workspaces/fair-queue.js";
import { FairTurns } from "../workspaces/fair-turns.js";
import { keyRejection, WorkspaceOpsNotifier } from "../workspaces/key-rejection.js";
import { stampQueue } from "../workspaces/stamped-queue.js";
import { ownJobCounts } from "../workspaces/queue-depth.js";
import type { Services } from "./build-services.js";
import { stateStores } from "./state-stores.js";

/*
 * Multi-workspace mode (DESIGN rule 12): each workspace gets the same services as a
 * single-workspace deployment, built over its own key prefix (`<prefix>:w:<id>`), its own
 * Slack token and Insight key, and queues that stamp its id on every job. Features are built
 * once over `scopedServices`, whose members act for the workspace of the work in progress:
 * Bolt middleware (team id), the webhook route (secret) and the worker wrapper (job's
 * `workspaceId`) set it. Outside a workspace those members throw rather than guess.
 */

const current = new AsyncLocalStorage<Services>();

/**
 * Workspaces a deployment-wide job (a reconcile pass, an alerts evaluation) acts for at once:
 * one whose Insight service is slow (or whose pass waits out a delivery in flight) does not
 * make every other wait, and the service is not asked by every workspace at the same moment.
 */
const EACH_AT_ONCE = 4;

/** A base URL that fails fast: a workspace that has not connected yet has no Insight service. */
const NOT_CONNECTED_URL = "http://not-connected.invalid";

export interface WorkspaceCredentials {
  id: string;
  botToken: string;
  insight: { apiKey: string; baseUrl: string } | undefined;
}

function stampQueues(q: Queues, id: string, turns: FairTurns): Queues {
  return {
    get layout() {
      return q.layout;
    },
    get digest() {
      return stampQueue(q.digest, id);
    },
    get alerts() {
      return stampQueue(q.alerts, id);
    },
    namesOf: (name) => q.namesOf(name),
    get deliveries() {
      return stampQueue(q.deliveries, id);
    },
    // Slack rate limits are per workspace: the slack-out queue takes fair turns across workspaces.
    get slack() {
      return fairQueue(stampQueue(q.slack, id), turns, id, SHARD_KEYS.slack);
    },
    get refresh() {
      return stampQueue(q.refresh, id);
    },
    get weekly() {
      return stampQueue(q.weekly, id);
    },
    get reconcile() {
      return stampQueue(q.reconcile, id);
    },
    byName: (name) => {
      const queue = q.byName(name);
      return queue ? stampQueue(queue, id) : undefined;
    },
    all: () => q.all(),
    close: async () => undefined, // the shared queues are closed by their owner
  };
}

/** One workspace's services: the base's connections and queues, everything else its own. */
export function buildWorkspaceServices(
  base: Services,
  ws: WorkspaceCredentials,
  adminsOf?: (workspaceId: string) => Promise<string[]>,
): Services {
  const { config, logger, metrics, redis, tuning } = base;
  const keys = workspaceStateKeys(config.redis.prefix, ws.id, { cluster: isCluster(redis) });
  const queues = stampQueues(base.queues, ws.id, new FairTurns(redis, config.redis.prefix));
  const wsLogger = logger.child({ workspace: ws.id });
  const client = new InsightClient({
    baseUrl: ws.insight?.baseUrl ?? NOT_CONNECTED_URL,
    apiKey: ws.insight?.apiKey ?? "not-connected",
    apiVersion: config.insight.apiVersion,
    searchParam: config.insight.searchParam,
    logger: wsLogger,
    metrics,
    ...(tuning.insightTimeoutMs ? { timeoutMs: tuning.insightTimeoutMs } : {}),
    ...(tuning.insightRetry ? { retry: tuning.insightRetry } : {}),
    // The key works (again): the "key rejected" mark goes (throttled in keyRejection).
    onSuccess: () => void rejection?.accepted(),
  });
  const slack = createSlackApi({
    token: ws.botToken,
    apiUrl: config.slack.apiUrl,
    logger: wsLogger,
    metrics,
  });
  // Operational alerts of a workspace never go to the deployment's ops channel (another
  // customer's); a refused Insight key is told to the workspace's own admins.
  const connections = base.installs?.connections;
  const rejection =
    connections && ws.insight
      ? keyRejection({
          workspaceId: ws.id,
          apiKey: ws.insight.apiKey,
          connections,
          admins: adminsOf ?? (async () => []),
          dm: async (userId, text, key) => {
            await queues.slack.add(
              "dm",
              { kind: "dm", channelId: userId, userId, text },
              { jobId: jobId("dm", userId, key) },
            );
          },
          logger: wsLogger,
        })
      : undefined;
  const ops = rejection
    ? new WorkspaceOpsNotifier(redis, keys, () => queues.slack, wsLogger, rejection)
    : new OpsNotifier(redis, keys, () => queues.slack, undefined, wsLogger);
  return {
    ...base,
    logger: wsLogger,
    keys,
    queues,
    ...stateStores({
      redis,
      keys,
      queues,
      defaultTimezone: config.weekly.defaultTimezone,
      channelGapMs: tuning.channelGapMs,
    }),
    ops,
    insight: { client, lookup: new ThreadLookup(client, { cacheMs: tuning.lookupCacheMs }) },
    slack,
    sender: createSlackSender(slack, new MethodHold(redis, keys)),
    reportInsightError: insightErrorReporter(ops),
    workspaceId: ws.id,
    workspaceStatus: {
      queues: () => base.queues.all().map((q) => ownJobCounts(q, ws.id)),
      // Its deliveries are spooled in its own directory (workspace-wiring.ts).
      spoolDir: join(config.spoolDir, "w", ws.id),
      insightConnected: ws.insight !== undefined,
    },
  };
}

/** Runs `fn` as work of that workspace. */
export function runAs<T>(ws: Services, fn: () => T): T {
  return current.run(ws, fn);
}

/** The id of the workspace whose work is in progress, if any. */
export function currentWorkspaceId(): string | undefined {
  return current.getStore()?.workspaceId;
}

function need(): Services {
  const s = current.getStore();
  if (!s) throw new Error("no workspace for this work (multi-workspace mode)");
  return s;
}

/** An object whose members are the current workspace's; methods read at build time resolve at call time. */
function scoped<T extends object>(pick: (s: Services) => T): T {
  return new Proxy({} as T, {
    get(_t, prop) {
      const s = current.getStore();
      if (!s) {
        const call = (...args: unknown[]) => {
          const target = pick(need());
          return (Reflect.get(target, prop) as (...a: unknown[]) => unknown).apply(target, args);
        };
        // Read as a value (a queue, a key) rather than called: there is no workspace to read it
        // from, which is said at once instead of failing later as "x is not a function".
        return new Proxy(call, {
          get: (fn, p) => {
            need();
            return Reflect.get(fn, p) as unknown;
          },
        });
      }
      const target = pick(s);
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/**
 * The base logger, or inside a workspace's work that workspace's child logger (its lines carry
 * `workspace`), resolved at each call like the other scoped members; outside any workspace
 * (start-up, deployment-wide passes) it logs as the base does.
 */
function scopedLogger(base: Logger): Logger {
  return new Proxy(base, {
    get(target, prop) {
      const logger = current.getStore()?.logger ?? target;
      const v: unknown = Reflect.get(logger, prop, logger);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(logger) : v;
    },
  });
}

/** The services features are built over in multi-workspace mode. */
export function scopedServices(base: Services): Services {
  return {
    ...base,
    logger: scopedLogger(base.logger),
    keys: scoped((s) => s.keys),
    queues: scoped((s) => s.queues),
    subscriptions: scoped((s) => s.subscriptions),
    refs: scoped((s) => s.refs),
    triage: scoped((s) => s.triage),
    replies: scoped((s) => s.replies),
    digest: {
      pending: scoped((s) => s.digest.pending),
      schedules: scoped((s) => s.digest.schedules),
      timeZoneOf: (channelId) => need().digest.timeZoneOf(channelId),
    },
    alerts: scoped((s) => s.alerts),
    health: scoped((s) => s.health),
    schedules: scoped((s) => s.schedules),
    ops: scoped((s) => s.ops),
    throttle: scoped((s) => s.throttle),
    insight: { client: scoped((s) => s.insight.client), lookup: scoped((s) => s.insight.lookup) },
    slack: scoped((s) => s.slack),
    sender: scoped((s) => s.sender),
    reportInsightError: (...args) => need().reportInsightError(...args),
    workspaceStatus: {
      queues: () => need().workspaceStatus?.queues() ?? [],
      get spoolDir() {
        return need().workspaceStatus?.spoolDir ?? base.config.spoolDir;
      },
      get insightConnected() {
        return need().workspaceStatus?.insightConnected ?? true;
      },
    },
  };
}

/** Finds (and caches) each workspace's services from its installation and connection. */
export class Workspaces {
  private readonly cache = new Map<string, Promise<Services | undefined>>();
  private readonly forgetters: ((id: string) => void)[] = [];

  constructor(
    private readonly base: Services,
    private readonly load: (id: string) => Promise<WorkspaceCredentials | undefined>,
    readonly list: () => Promise<string[]>,
    /** Who is told when the workspace's Insight key is refused. */
    private readonly adminsOf?: (workspaceId: string) => Promise<string[]>,
  ) {}

  get(id: string): Promise<Services | undefined> {
    let hit = this.cache.get(id);
    if (!hit) {
      hit = this.load(id).then((c) => (c ? buildWorkspaceServices(this.base, c, this.adminsOf) : undefined));
      // A failed or empty load is not remembered: the next request tries again.
      hit.then(
        (s) => s ?? this.cache.delete(id),
        () => this.cache.delete(id),
      );
      this.cache.set(id, hit);
    }
    return hit;
  }

  /** After connect, disconnect, rotation or uninstall: rebuilt on next use. */
  forget(id: string): void {
    for (const f of this.forgetters) f(id);
    const hit = this.cache.get(id);
    this.cache.delete(id);
    void hit?.then((s) => s?.insight.client.close()).catch(() => undefined);
  }

  /** Called with the id of each workspace forgotten (caches keyed otherwise drop it too). */
  onForget(f: (id: string) => void): void {
    this.forgetters.push(f);
  }

  /** Runs `fn` as that workspace's work; false when the workspace is not installed. */
  async run(id: string, fn: () => Promise<unknown>): Promise<boolean> {
    const s = await this.get(id);
    if (!s) return false;
    await runAs(s, fn);
    return true;
  }

  /**
   * Runs `fn` as the work of each installed workspace, a few at a time: one that fails (or
   * is gone meanwhile) is told to `failed` and does not stop or hold back the others.
   * `connectedOnly`: work that reads the Insight service skips workspaces not connected to one.
   */
  async forEach(
    fn: (id: string) => Promise<unknown>,
    failed: (id: string, err: unknown) => void,
    o: { connectedOnly?: boolean } = {},
  ): Promise<{ workspaces: number; failed: number; notConnected: number }> {
    const ids = await this.list();
    let next = 0;
    let ran = 0;
    let failures = 0;
    let skipped = 0;
    const lane = async (): Promise<void> => {
      for (let id = ids[next++]; id !== undefined; id = ids[next++]) {
        try {
          const s = await this.get(id);
          if (!s) continue;
          if (o.connectedOnly && s.workspaceStatus?.insightConnected === false) {
            skipped++;
            continue;
          }
          await runAs(s, () => fn(id));
          ran++;
        } catch (err) {
          failures++;
          failed(id, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(EACH_AT_ONCE, ids.length) }, lane));
    return { workspaces: ran, failed: failures, notConnected: skipped };
  }

  /**
   * A queue processor that acts for the job's workspace. A job of a workspace that is gone
   * (uninstalled, revoked) ends here without any Slack call; a job that carries no workspace
   * (the deployment-wide reconcile and alerts schedulers, which read the Insight service) runs
   * once for each installed workspace that is connected to one.
   */
  wrap(processor: Processor, logger: Services["logger"]): Processor {
    return async (job, token) => {
      const id = (job.data as { workspaceId?: unknown } | undefined)?.workspaceId;
      if (typeof id === "string") {
        let result: unknown;
        const ran = await this.run(id, async () => {
          result = await processor(job, token);
        });
        if (!ran)
          logger.info(
            { jobId: job.id, workspace: id },
            "job of a workspace that is gone: ended, nothing sent",
          );
        return result;
      }
      return this.forEach(
        () => processor(job, token),
        (ws, err) => logger.warn({ err, jobId: job.id, workspace: ws }, "job failed for one workspace"),
        { connectedOnly: true },
      );
    };
  }
}
