import { join } from "node:path";
import type { ConnectDeps } from "../workspaces/connect-actions.js";
import { publishHome } from "../slack/home/publish-home.js";
import { workspacePrefix } from "../store/keys.js";
import { withTimeout } from "../store/redis.js";
import type { Receiver } from "../webhooks/create-receiver.js";
import { DeliveryRecorder } from "../intake/recorder.js";
import { DeliveryIngest } from "../webhooks/ingest.js";
import { Spool } from "../webhooks/spool.js";
import { classifyDelivery } from "../intake/classify-delivery.js";
import { UnroutedDeliveries, type WebhookIngest } from "../webhooks/unrouted.js";
import { workspaceAdmins } from "../workspaces/admins.js";
import { checkInsightKey } from "../workspaces/check-key.js";
import { secretHash, type ConnectionStore } from "../workspaces/connection-store.js";
import type { RemoveWorkspaceDeps } from "../workspaces/lifecycle.js";
import type { WorkspaceRow } from "../admin/workspaces-page.js";
import { waitingByWorkspace } from "../workspaces/queue-depth.js";
import type { Services } from "./build-services.js";
import type { Workspaces } from "../workspaces/workspaces.js";
import type { AppWorkspace } from "./app-workspace.js";
import { commandsDeps } from "./narrow-deps.js";

export type Installs = NonNullable<Services["installs"]>;

/** How long a web process trusts a secret it has seen without asking Redis again. */
const SECRET_CACHE_MS = 30_000;

/** How long a secret lookup may take before the delivery is kept unrouted instead. */
const LOOKUP_TIMEOUT_MS = 1_000;

/**
 * The webhook route's secret -> workspace: each workspace's deliveries are recorded under its
 * own prefix (de-duplication, health, dead letters) and queued stamped with its id, over the
 * receiver's fail-fast connection; each has its own spool directory. Known secrets are kept in
 * memory for a short while, and past that still used while Redis cannot be asked, so a Redis
 * outage does not turn a known sender's deliveries into 404s or 503s; a rotated, disconnected
 * or uninstalled secret is dropped at once in this process and within SECRET_CACHE_MS in the
 * others. A secret this process has not seen, while Redis is down, is kept unrouted on disk
 * (webhooks/unrouted.ts) and routed, or dead-lettered, once Redis answers (rule 1).
 */
export function workspaceIngests(
  s: Services,
  connections: Pick<ConnectionStore, "workspaceForSecretHash">,
  workspaces: Workspaces<AppWorkspace>,
  receiver: Receiver,
): (presented: string) => Promise<WebhookIngest | undefined> {
  const bySecret = new Map<string, { id: string; ingest: DeliveryIngest; until: number }>();
  const byWorkspace = new Map<string, DeliveryIngest>();
  workspaces.onForget((id) => {
    for (const [h, e] of bySecret) if (e.id === id) bySecret.delete(h);
    byWorkspace.get(id)?.close();
    byWorkspace.delete(id);
  });
  const ingestOf = (id: string): DeliveryIngest => {
    let ingest = byWorkspace.get(id);
    if (!ingest) {
      // One intake for the deployment: the pump records each receipt under the workspace's
      // prefix and stamps its job with the workspace.
      const recorder = new DeliveryRecorder(receiver.redis, { key: receiver.keys.intake, workspaceId: id });
      ingest = new DeliveryIngest(
        recorder,
        new Spool(join(s.config.spoolDir, "w", id), s.logger),
        s.logger,
        s.metrics,
      );
      void ingest.replay().catch(() => undefined);
      byWorkspace.set(id, ingest);
    }
    return ingest;
  };
  /** The installed workspace whose secret has this hash; undefined: none; throws while Redis cannot say. */
  const lookup = async (h: string): Promise<string | undefined> => {
    if (!receiver.recorder.available) throw new Error("Redis unavailable");
    const id = await withTimeout(connections.workspaceForSecretHash(h), LOOKUP_TIMEOUT_MS, "Redis");
    if (!id || !(await withTimeout(workspaces.get(id), LOOKUP_TIMEOUT_MS, "Redis"))) return undefined;
    return id;
  };
  const unrouted = new UnroutedDeliveries({
    dir: join(s.config.spoolDir, "unrouted"),
    resolve: async (h) => {
      const id = await lookup(h);
      return id ? ingestOf(id) : "unknown";
    },
    deadLetter: (d) => {
      const c = classifyDelivery(d.body);
      return receiver.health.addDeadLetter({
        at: d.receivedAt,
        reason: "unknown_secret",
        webhookType: c.kind === "valid" ? c.event.webhookType : c.webhookType,
        error: "kept while Redis was unavailable; no workspace has this webhook secret",
        body: d.body,
        deliveryId: c.deliveryId,
      });
    },
    logger: s.logger,
    metrics: s.metrics,
  });
  const route = () => void unrouted.replay().catch(() => undefined);
  receiver.redis.on("ready", route);
  if (unrouted.pending()) route(); // kept by a process before this one
  return async (presented) => {
    const h = secretHash(presented);
    const known = bySecret.get(h);
    if (known && known.until > Date.now()) return known.ingest;
    let id: string | undefined;
    try {
      id = await lookup(h);
    } catch {
      // Redis cannot say: a secret seen lately still goes to its workspace (whose ingest
      // spools); any other is kept until it can be checked.
      return known?.ingest ?? unrouted.ingestFor(h);
    }
    if (!id) return undefined;
    const ingest = ingestOf(id);
    bySecret.set(h, { id, ingest, until: Date.now() + SECRET_CACHE_MS });
    return ingest;
  };
}

/** What Connect needs, from the deployment's config and stores. */
export function connectDeps(
  s: Services,
  installs: Installs,
  workspaces: Workspaces<AppWorkspace>,
): ConnectDeps {
  const { config, logger } = s;
  const deps: ConnectDeps = {
    connections: installs.connections,
    checkKey: (apiKey, baseUrl) =>
      checkInsightKey({
        apiKey,
        baseUrl,
        apiVersion: config.insight.apiVersion,
        searchParam: config.insight.searchParam,
        logger,
      }),
    isAdmin: workspaceAdmins({
      adminUserIds: config.adminUserIds,
      apiUrl: config.slack.apiUrl,
      botToken: (id) => installs.installations.botToken(id),
    }),
    fixedBaseUrl: config.insight.baseUrl || undefined,
    publicUrl: config.publicUrl,
    // The workspace as it is now (rebuilt after the change), with its own Home deps.
    refreshHome: async (id, userId) => {
      const ws = await workspaces.get(id);
      if (ws) await publishHome(commandsDeps(ws), userId);
    },
    changed: (id) => workspaces.forget(id),
    logger,
  };
  return deps;
}

/** What removing a workspace (uninstall, revoked token) needs. */
export function lifecycleDeps(
  s: Services,
  installs: Installs,
  workspaces: Workspaces<AppWorkspace>,
): RemoveWorkspaceDeps {
  return {
    redis: s.redis,
    prefixOf: (id) => workspacePrefix(s.config.redis.prefix, id),
    removeSchedules: async (id) => {
      const ws = await workspaces.get(id);
      if (!ws) return 0;
      const all = await ws.schedules.all();
      for (const sched of all) await ws.schedules.remove(sched.channelId);
      // Its digest periods too: through its own view, which lists only its job schedulers.
      const periods = await ws.queues.digest.getJobSchedulers(0, -1);
      for (const j of periods) await ws.queues.digest.removeJobScheduler(j.key);
      return all.length + periods.length;
    },
    deleteInstallation: (id) =>
      // Installations are keyed by workspace id (team or enterprise): this query names it.
      installs.installations.deleteInstallation({
        teamId: id,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      }),
    disconnect: (id) => installs.connections.disconnect(id),
    forget: (id) => workspaces.forget(id),
    logger: s.logger,
  };
}

/** The admin page's rows: what each workspace is, never its tokens, key or webhook URL. */
export async function workspaceRows(
  s: Services,
  installs: Installs,
  workspaces: Workspaces<AppWorkspace>,
): Promise<WorkspaceRow[]> {
  const [installed, waiting] = await Promise.all([
    installs.installations.list(),
    waitingByWorkspace(s.queues.all()),
  ]);
  return Promise.all(
    installed.map(async (w): Promise<WorkspaceRow> => {
      const [conn, subs] = await Promise.all([
        installs.connections.summary(w.id),
        workspaces.visit(w.id, (ws) => ws.subscriptions.all()).catch(() => undefined),
      ]);
      return {
        id: w.id,
        name: w.name,
        enterprise: w.enterprise,
        installedAt: w.installedAt,
        connected: conn.connected,
        keyRejectedAt: conn.keyRejectedAt,
        subscriptions: subs?.length,
        waitingJobs: waiting.get(w.id) ?? 0,
      };
    }),
  );
}
