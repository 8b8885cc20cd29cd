import { createSlackSender } from "../../src/slack/outbound/slack-sender.js";
import { Queue, Worker, type JobsOptions } from "bullmq";
import { Redis } from "ioredis";
import { startEmulator, type Emulator } from "../../dev/emulator/index.js";
import { InsightClient } from "../../src/insight/client.js";
import { ChannelThrottle } from "../../src/slack/outbound/channel-throttle.js";
import { OpsNotifier } from "../../src/ops/ops-notifier.js";
import { createQueues, type Queues } from "../../src/jobs/queue-registry.js";
import { QUEUE_NAMES } from "../../src/jobs/job-types.js";
import { silentLogger } from "../../src/log.js";
import { createMetrics } from "../../src/metrics.js";
import { createSlackApi } from "../../src/slack/client.js";
import { startSlackStandIn, type SlackStandIn } from "../../dev/slack-standin/server.js";
import { stateKeys, type StateKeys } from "../../src/store/keys.js";
import { SubscriptionStore } from "../../src/store/subscriptions.js";
import { runWeeklySummary, type WeeklyRunDeps } from "../../src/weekly/run-weekly.js";
import { WeeklySchedules, type WeeklyJob } from "../../src/weekly/schedules.js";
import { dropPrefix, testRedisUrl, uniquePrefix } from "../helpers/redis.js";

/**
 * The weekly module's real parts without the web role: the emulator, the stand-in Slack, real
 * Redis under a unique prefix, a BullMQ `weekly` queue and, on demand, its worker.
 */
export interface WeeklyRig {
  em: Emulator;
  slack: SlackStandIn;
  redis: Redis;
  prefix: string;
  keys: StateKeys;
  queue: Queue<WeeklyJob>;
  schedules: WeeklySchedules;
  subscriptions: SubscriptionStore;
  deps(extra?: Partial<WeeklyRunDeps>): WeeklyRunDeps;
  startWorker(extra?: Partial<WeeklyRunDeps>): Worker<WeeklyJob>;
  /** A second "process": its own connection, queue and schedules over the same Redis prefix. */
  connect(): { queue: Queue<WeeklyJob>; schedules: WeeklySchedules; close(): Promise<void> };
  subscribe(channelId: string, groupId: string, groupName: string): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(
  o: { jobOptions?: JobsOptions; emulatorNow?: () => Date } = {},
): Promise<WeeklyRig> {
  const em = await startEmulator(o.emulatorNow ? { now: o.emulatorNow } : {});
  const slack = await startSlackStandIn({ out: () => undefined });
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
  const prefix = uniquePrefix("weekly");
  const keys = stateKeys(prefix);
  const jobOptions: JobsOptions = { attempts: 2, backoff: { type: "fixed", delay: 50 }, ...o.jobOptions };
  const client = new InsightClient({ baseUrl: em.baseUrl, apiKey: em.apiKey, retry: { maxAttempts: 1 } });
  const metrics = createMetrics();
  const slackApi = createSlackApi({
    token: "xoxb-weekly-rig-token",
    apiUrl: slack.url,
    logger: silentLogger,
    metrics,
  });
  const queues: Queues = createQueues(redis, prefix);
  const subscriptions = new SubscriptionStore(redis, keys);
  const extras: Array<{ close(): Promise<void> }> = [];

  const makeQueue = (conn: Redis) =>
    new Queue<WeeklyJob>(QUEUE_NAMES.weekly, { connection: conn, prefix, defaultJobOptions: jobOptions });
  const queue = makeQueue(redis);
  const schedules = new WeeklySchedules(() => queue, redis, keys.schedules, jobOptions);

  const deps = (extra: Partial<WeeklyRunDeps> = {}): WeeklyRunDeps => ({
    client,
    logger: silentLogger,
    redis,
    runKey: keys.weeklyRun,
    subscriptions,
    sender: createSlackSender(slackApi),
    throttle: new ChannelThrottle(redis, keys, 10),
    ops: new OpsNotifier(redis, keys, () => queues.slack, undefined, silentLogger),
    reportInsightError: async () => undefined,
    ...extra,
  });

  return {
    em,
    slack,
    redis,
    prefix,
    keys,
    queue,
    schedules,
    subscriptions,
    deps,
    startWorker(extra = {}) {
      const conn = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
      const w = new Worker<WeeklyJob>(QUEUE_NAMES.weekly, (job) => runWeeklySummary(job, deps(extra)), {
        connection: conn,
        prefix,
        concurrency: 2,
      });
      w.on("error", () => undefined);
      extras.push({
        close: async () => {
          await w.close();
          conn.disconnect();
        },
      });
      return w;
    },
    connect() {
      const conn = new Redis(testRedisUrl(), { maxRetriesPerRequest: null });
      const q = makeQueue(conn);
      const handle = {
        queue: q,
        schedules: new WeeklySchedules(() => q, conn, keys.schedules, jobOptions),
        close: async () => {
          await q.close();
          conn.disconnect();
        },
      };
      extras.push(handle);
      return handle;
    },
    async subscribe(channelId, groupId, groupName) {
      await subscriptions.put({
        channelId,
        groupId,
        groupName,
        communityId: undefined,
        filters: {},
        createdBy: "U0ALICE",
        createdAt: new Date().toISOString(),
      });
    },
    async close() {
      for (const e of extras.reverse()) await e.close().catch(() => undefined);
      await queue.close();
      await queues.close();
      await client.close();
      redis.disconnect();
      await em.close();
      await slack.close();
      await dropPrefix(prefix);
    },
  };
}
