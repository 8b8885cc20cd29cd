import { join } from "node:path";
import { AskedThisWindow } from "../jobs/asked-this-window.js";
import type { Queue } from "bullmq";
import type { InsightClient } from "../insight/client.js";
import { insightClientOf } from "./insight-client.js";
import type { OverdueJobs } from "../jobs/overdue-jobs.js";
import { QUEUE_NAMES } from "../jobs/job-types.js";
import { ThreadLookup } from "../jobs/thread-lookup.js";
import { ThreadMessages } from "../jobs/thread-messages.js";
import { countingIntake, intakeLength } from "../intake/view.js";
import type { Logger } from "../log.js";
import { OpsNotifier } from "../ops/ops-notifier.js";
import { insightErrorReporter, type ReportInsightError } from "../ops/report-insight-error.js";
import { createSlackApi, type SlackApi } from "../slack/client.js";
import { MethodHold } from "../slack/outbound/method-hold.js";
import { createSlackSender, type SlackSender } from "../slack/outbound/slack-sender.js";
import { workspaceStateKeys, type StateKeys } from "../store/keys.js";
import { isCluster } from "../store/redis.js";
import { FairTurns } from "../workspaces/fair-turns.js";
import { keyRejection, WorkspaceOpsNotifier } from "../workspaces/key-rejection.js";
import { ownJobCounts } from "../workspaces/queue-depth.js";
import { SINGLE_WORKSPACE_ID } from "../workspaces/workspace-id.js";
import { workspaceQueues, type WorkspaceQueues } from "../workspaces/workspace-queues.js";
import { jobId } from "../jobs/job-types.js";
import type { Services } from "./build-services.js";
import { stateStores, type StateStores } from "./state-stores.js";

/** A base URL that fails fast: a workspace that has not connected yet has no Insight service. */
const NOT_CONNECTED_URL = "http://not-connected.invalid";

/** What one workspace's status reads: its own jobs, its own spool, its connection. */
export interface WorkspaceStatus {
  queues(): readonly Pick<Queue, "name" | "getJobCounts" | "getWorkersCount">[];
  readonly spoolDir: string;
  /** An admin has connected the workspace's Insight service (Connect on Home); always so with one workspace. */
  readonly insightConnected: boolean;
  /** Jobs no worker moves (the deployment's queues): the single workspace's status shows them. */
  overdue?: () => ReturnType<OverdueJobs["look"]>;
}

/**
 * One workspace's clients and stores, over its own key prefix, its own Slack token and Insight
 * key, and producers that stamp its id on every job. Shares the deployment's connections, config
 * and metrics. A single-workspace deployment has exactly one (its keys are the deployment's own).
 */
export interface WorkspaceServices
  extends StateStores, Pick<Services, "config" | "metrics" | "redis" | "tuning" | "installs" | "restarts"> {
  readonly id: string;
  logger: Logger;
  keys: StateKeys;
  queues: WorkspaceQueues;
  ops: OpsNotifier;
  insight: { client: InsightClient; lookup: ThreadLookup; messages: ThreadMessages };
  slack: SlackApi;
  sender: SlackSender;
  reportInsightError: ReportInsightError;
  status: WorkspaceStatus;
  /** The windowed Slack jobs this process already added for the workspace (jobs/asked-this-window.ts). */
  asked: AskedThisWindow;
}

/** An installed workspace's credentials (many workspaces). */
export interface WorkspaceCredentials {
  id: string;
  botToken: string;
  insight: { apiKey: string; baseUrl: string } | undefined;
}

/** A workspace's own state over its keys: the stores, its producers, its Slack sender (with its method holds). */
function ownState(base: Services, keys: StateKeys, queues: WorkspaceQueues, slack: SlackApi) {
  const { redis } = base;
  return {
    keys,
    queues,
    ...stateStores({
      redis,
      keys,
      queues,
      defaultTimezone: base.config.weekly.defaultTimezone,
      channelGapMs: base.tuning.channelGapMs,
      legacyRefs: base.legacyRefs,
    }),
    slack,
    sender: createSlackSender(slack, new MethodHold(redis, keys)),
    asked: new AskedThisWindow(),
  };
}

function shared(
  base: Services,
): Pick<WorkspaceServices, "config" | "metrics" | "redis" | "tuning" | "installs" | "restarts"> {
  return {
    config: base.config,
    metrics: base.metrics,
    redis: base.redis,
    tuning: base.tuning,
    restarts: base.restarts,
    ...(base.installs ? { installs: base.installs } : {}),
  };
}

/**
 * The one workspace of a single-workspace deployment: the env tokens, the deployment's own keys
 * and ops channel, the ids its jobs always had. Its status counts the intake's deliveries as
 * waiting ones (a delivery there is one no worker has seen yet).
 */
export function singleWorkspaceServices(base: Services): WorkspaceServices {
  const { config, logger, redis, keys } = base;
  const queues = workspaceQueues(base.queues, SINGLE_WORKSPACE_ID, { ownIds: false });
  const slack = base.slack;
  return {
    ...shared(base),
    id: SINGLE_WORKSPACE_ID,
    logger,
    ...ownState(base, keys, queues, slack),
    ops: base.ops,
    insight: base.insight,
    reportInsightError: insightErrorReporter(base.ops),
    status: {
      queues: () =>
        countingIntake(base.queues.all(), base.queues.namesOf(QUEUE_NAMES.deliveries)[0] ?? "", () =>
          intakeLength(redis, keys),
        ),
      spoolDir: config.spoolDir,
      insightConnected: true,
      overdue: () => base.overdue.look(),
    },
  };
}

/**
 * An installed workspace (many workspaces): its own key prefix (`<prefix>:w:<id>`), token and
 * Insight key, and ids that name it. Its operational alerts never go to the deployment's ops
 * channel (another customer's): a refused Insight key is told to its own admins.
 */
export function installedWorkspaceServices(
  base: Services,
  ws: WorkspaceCredentials,
  adminsOf: (workspaceId: string) => Promise<string[]>,
): WorkspaceServices {
  const { config, logger: baseLogger, redis } = base;
  const keys = workspaceStateKeys(config.redis.prefix, ws.id, { cluster: isCluster(redis) });
  const queues = workspaceQueues(base.queues, ws.id, {
    ownIds: true,
    // Slack rate limits are per workspace: the slack-out queue takes fair turns across workspaces.
    turns: new FairTurns(redis, config.redis.prefix),
  });
  const logger = baseLogger.child({ workspace: ws.id });
  const connections = base.installs?.connections;
  const rejection =
    connections && ws.insight
      ? keyRejection({
          workspaceId: ws.id,
          apiKey: ws.insight.apiKey,
          connections,
          admins: adminsOf,
          dm: async (userId, text, key) => {
            await queues.slack.add(
              "dm",
              { kind: "dm", channelId: userId, userId, text },
              { jobId: jobId("dm", userId, key) },
            );
          },
          logger,
        })
      : undefined;
  const client = insightClientOf(
    base,
    logger,
    ws.insight ?? { baseUrl: NOT_CONNECTED_URL, apiKey: "not-connected" },
    // The key works (again): the "key rejected" mark goes (throttled in keyRejection).
    () => void rejection?.accepted(),
  );
  const slack = createSlackApi({
    token: ws.botToken,
    apiUrl: config.slack.apiUrl,
    logger,
    metrics: base.metrics,
  });
  const ops = rejection
    ? new WorkspaceOpsNotifier(redis, keys, () => queues.slack, logger, rejection)
    : new OpsNotifier(redis, keys, () => queues.slack, undefined, logger);
  return {
    ...shared(base),
    id: ws.id,
    logger,
    ...ownState(base, keys, queues, slack),
    ops,
    insight: {
      client,
      lookup: new ThreadLookup(client, { cacheMs: base.tuning.lookupCacheMs }),
      messages: new ThreadMessages(client),
    },
    slack,
    sender: createSlackSender(slack, new MethodHold(redis, keys)),
    reportInsightError: insightErrorReporter(ops),
    status: {
      queues: () => base.queues.all().map((q) => ownJobCounts(q, ws.id)),
      // Its deliveries are spooled in its own directory (workspace-wiring.ts).
      spoolDir: join(config.spoolDir, "w", ws.id),
      insightConnected: ws.insight !== undefined,
    },
  };
}
