import type { Context } from "@slack/bolt";
import type { WorkspaceHas } from "../feature.js";
import { workspaceStateKeys, workspacesWithKeys } from "../store/keys.js";
import { HAS_KEY, WorkspacesWith } from "../store/workspaces-with.js";
import { isCluster } from "../store/redis.js";
import { groupFollowed } from "../intake/followed-groups.js";
import type { IntakeProducer } from "../intake/pump.js";
import type { WebhookIngest } from "../webhooks/unrouted.js";
import type { Receiver } from "../webhooks/create-receiver.js";
import { listWorkspaceAdmins } from "../workspaces/admins.js";
import { connectionBlocks, connectFeature } from "../workspaces/connect-actions.js";
import { lifecycleFeature } from "../workspaces/lifecycle.js";
import { SINGLE_WORKSPACE_ID, workspaceIdOf } from "../workspaces/workspace-id.js";
import { workspaceQueues } from "../workspaces/workspace-queues.js";
import { Workspaces } from "../workspaces/workspaces.js";
import { appWorkspace, plug, type AppWorkspace, type BoundFeature } from "./app-workspace.js";
import type { Services } from "./build-services.js";
import { buildFeatures, type FeatureOptions } from "./features.js";
import {
  connectDeps,
  lifecycleDeps,
  workspaceIngests,
  workspaceRows,
  type Installs,
} from "./workspace-wiring.js";
import { installedWorkspaceServices, singleWorkspaceServices } from "./workspace-services.js";

/**
 * The deployment's workspaces and how each entry point finds the one it acts for: the only
 * place where one workspace (the env tokens) and many (installations) differ. Everything
 * downstream (roles, workers, Bolt, the pump) is the same for both.
 */
export interface Deployment {
  workspaces: Workspaces<AppWorkspace>;
  features: readonly BoundFeature[];
  /** The workspace a Slack request acts for: its team (or org); the one workspace when there is one. */
  idOfRequest(context: Context): string | undefined;
  /** The workspace a job acts for: its `workspaceId` (the one workspace also takes jobs made before ids were stamped). */
  idOfJob(data: unknown): string | undefined;
  /** The intake pump: where a delivery of this workspace (undefined: none named) is queued. */
  deliveriesFor(workspaceId: string | undefined): IntakeProducer;
  /** The intake pump: whether anyone wants a delivery of this group. */
  followed(workspaceId: string | undefined, groupId: string): Promise<boolean>;
  /** The webhook route: which workspace a secret belongs to (many workspaces); undefined: the deployment's one secret. */
  ingestFor?(receiver: Receiver): (presented: string) => Promise<WebhookIngest | undefined>;
  /** The workspaces that have any of `has` (many: the sets the stores note them in). */
  having(has: readonly WorkspaceHas[]): Promise<string[]>;
  /** How many workspaces are installed and connected (many workspaces: /metrics). */
  census?(): Promise<{ installed: number; connected: number }>;
}

const stampedId = (data: unknown): string | undefined => {
  const id = (data as { workspaceId?: unknown } | null | undefined)?.workspaceId;
  return typeof id === "string" ? id : undefined;
};

/** The deployment for the config: many workspaces when it has the installation stores, else one. */
export function deploymentOf(s: Services, o: FeatureOptions = {}): Deployment {
  return s.installs ? installedDeployment(s, s.installs, o) : singleDeployment(s, o);
}

/** One workspace, from the env tokens: every request and every job is its. */
function singleDeployment(s: Services, o: FeatureOptions): Deployment {
  const features = buildFeatures(s, [], o);
  const ws = appWorkspace(singleWorkspaceServices(s), features);
  const workspaces = new Workspaces<AppWorkspace>({
    load: async (id) => (id === SINGLE_WORKSPACE_ID ? ws : undefined),
    list: async () => [SINGLE_WORKSPACE_ID],
  });
  const followed = groupFollowed(s.redis, s.config.redis.prefix, { multiWorkspace: false });
  return {
    workspaces,
    features,
    having: async (has) => {
      const there = await Promise.all(has.map((h) => s.redis.exists(HAS_KEY[h](s.keys))));
      return there.some((n) => n > 0) ? [SINGLE_WORKSPACE_ID] : [];
    },
    idOfRequest: () => SINGLE_WORKSPACE_ID,
    idOfJob: (data) => stampedId(data) ?? SINGLE_WORKSPACE_ID,
    // The receiver names no workspace: its deliveries are the one workspace's.
    deliveriesFor: () => ws.queues.deliveries,
    followed,
  };
}

/** Installed workspaces (OAuth), each with its own token, Insight key, state and webhook secret. */
function installedDeployment(s: Services, installs: Installs, o: FeatureOptions): Deployment {
  const adminsOf = listWorkspaceAdmins({
    adminUserIds: s.config.adminUserIds,
    apiUrl: s.config.slack.apiUrl,
    botToken: (id) => installs.installations.botToken(id),
  });
  // The registry builds a workspace with every feature, and Connect and lifecycle are features
  // that act on the registry: the list is set once both exist.
  let features: readonly BoundFeature[] = [];
  const workspaces: Workspaces<AppWorkspace> = new Workspaces<AppWorkspace>({
    load: async (id) => {
      const botToken = await installs.installations.botToken(id);
      if (!botToken) return undefined;
      const conn = await installs.connections.get(id);
      const services = installedWorkspaceServices(
        s,
        { id, botToken, insight: conn ? { apiKey: conn.apiKey, baseUrl: conn.baseUrl } : undefined },
        adminsOf,
      );
      return appWorkspace(services, features, (w, userId) => connectionBlocks(connect, w.id, userId));
    },
    list: async () => (await installs.installations.list()).map((w) => w.id),
    dispose: (w) => void w.insight.client.close().catch(() => undefined),
  });
  const connect = connectDeps(s, installs, workspaces);
  features = buildFeatures(
    s,
    [
      plug(connectFeature(connect), () => ({})),
      plug(lifecycleFeature(lifecycleDeps(s, installs, workspaces)), () => ({})),
    ],
    { ...o, adminWorkspaces: () => workspaceRows(s, installs, workspaces) },
  );
  const followed = groupFollowed(s.redis, s.config.redis.prefix, { multiWorkspace: true });
  const producers = new Map<string, IntakeProducer>();
  const cluster = isCluster(s.redis);
  const withIndex = new WorkspacesWith(s.redis, workspacesWithKeys(s.config.redis.prefix), {
    keysOf: (id) => workspaceStateKeys(s.config.redis.prefix, id, { cluster }),
    all: () => workspaces.list(),
  });
  return {
    workspaces,
    features,
    having: (has) => withIndex.having(has),
    idOfRequest: (context) => workspaceIdOf(context),
    // A job without a workspace is refused: it could be anyone's.
    idOfJob: stampedId,
    deliveriesFor: (id) => {
      // No workspace named: queued as it is, and refused by its worker.
      if (!id) return s.queues.deliveries;
      let p = producers.get(id);
      if (!p) {
        p = workspaceQueues(s.queues, id, { ownIds: true }).deliveries;
        producers.set(id, p);
      }
      return p;
    },
    followed,
    ingestFor: (receiver) => workspaceIngests(s, installs.connections, workspaces, receiver),
    // Scraped every few seconds: two counts, never a read of each workspace.
    census: async () => {
      const [installed, connected] = await Promise.all([
        installs.installations.count(),
        installs.connections.count(),
      ]);
      return { installed, connected };
    },
  };
}
