import type { Server } from "node:http";
import type { Worker } from "bullmq";
import { createIntakePump } from "../intake/create-pump.js";
import type { WorkerHealth } from "../jobs/worker-health.js";
import { debugOnFailure } from "../log.js";
import { migrateCardRefs } from "../store/migrate-card-refs.js";
import { migrateThreadTriage } from "../store/migrate-thread-triage.js";
import { startProcessWatch } from "../ops/health-watch.js";
import type { SlackAppParts } from "../slack/app.js";
import type { Receiver } from "../webhooks/create-receiver.js";
import type { Workspaces } from "../workspaces/workspaces.js";
import type { AppWorkspace } from "./app-workspace.js";
import type { Services } from "./build-services.js";
import { deploymentOf } from "./deployment.js";
import type { FeatureOptions } from "./features.js";
import type { ThreadMetrics } from "./roles-thread-protocol.js";
import { reassertSchedules } from "./reassert-schedules.js";
import { startFeatureWorkers } from "./start-workers.js";
import { startWeb } from "./start-web.js";

export interface RunningRoles {
  server?: Server;
  /** Settles when a part this process cannot run without has ended on its own (the roles thread): with why. */
  died?: Promise<Error>;
  port?: number;
  slackApp?: SlackAppParts;
  receiver?: Receiver;
  workers: Worker[];
  workerHealth?: WorkerHealth;
  /** The deployment's workspaces (the one workspace, or the installed ones). */
  workspaces: Workspaces<AppWorkspace>;
  stop(): Promise<void>;
}

export type Role = "web" | "worker" | "scheduler";

/** Workers of this process that run on another thread (start-process.ts): the web role looks at them too. */
export interface WorkersElsewhere {
  health: Pick<WorkerHealth, "probe" | "queueNames">;
  /** Their metrics, added to this thread's in /metrics. */
  metrics(): Promise<ThreadMetrics>;
  /** A workspace changed here: that thread builds it again too. */
  forget(workspaceId: string): void;
}

export interface RoleOptions {
  /** The roles to run here; default: those `config.role` names. */
  roles?: readonly Role[];
  /** Whether to run the start migrations first (default true: another thread may have run them). */
  migrate?: boolean;
  /** Whether this thread runs the process's health watch (default true). */
  watch?: boolean;
  /** The process's workers on another thread: readiness, the health watch and /metrics see them. */
  elsewhere?: WorkersElsewhere;
}

/** The roles `config.role` names. */
export const rolesOf = (role: Services["config"]["role"]): Role[] =>
  role === "all" ? ["web", "worker", "scheduler"] : [role];

/**
 * Before any role reads or writes the state, it is put in the layout this version reads: per-channel
 * triage marks become the thread's (issue 35), then card refs and the thread index move to their
 * compact layout (issue 38; until it is done, the stores read the old keys too). Never fatal.
 */
export async function migrateState(s: Services): Promise<void> {
  const { config, logger } = s;
  await migrateThreadTriage(s.redis, config.redis.prefix, logger).catch((err: unknown) =>
    logger.warn({ err }, "could not migrate triage to threads; the next start tries again"),
  );
  await migrateCardRefs(s.redis, config.redis.prefix, logger, s.legacyRefs).catch((err: unknown) =>
    logger.warn({ err }, "could not migrate card refs; old ones are still read, the next start tries again"),
  );
}

/**
 * Starts the roles asked for (default: `config.role`'s) on this thread, once the state is in the
 * layout this version reads (`migrateState`): the features' workers of those roles (through the
 * one worker factory), the intake pump (worker), the scheduler's repeating work, then the web
 * role once readiness can see every worker of the process, and the process's health watch.
 */
export async function startRoles(
  s: Services,
  o: FeatureOptions = {},
  r: RoleOptions = {},
): Promise<RunningRoles> {
  const { config, logger } = s;
  if (r.migrate !== false) await migrateState(s);
  const d = deploymentOf(s, o);
  const here = new Set(r.roles ?? rolesOf(config.role));
  const runs = (role: Role) => here.has(role);
  const stops: (() => Promise<void>)[] = [];
  const elsewhere = r.elsewhere;
  if (elsewhere) d.workspaces.onForget((id) => elsewhere.forget(id));

  const started = startFeatureWorkers(s, d, runs);
  // The worker role moves acknowledged deliveries from the intake into the deliveries queue.
  const pump = runs("worker")
    ? createIntakePump({
        redis: s.redis,
        blocking: config.redis,
        prefix: config.redis.prefix,
        deliveriesFor: d.deliveriesFor,
        followed: d.followed,
        metrics: s.metrics,
        logger,
        ...(s.tuning.intakeLeaseMs ? { leaseMs: s.tuning.intakeLeaseMs } : {}),
        ...(s.tuning.intakeLingerMs !== undefined ? { lingerMs: s.tuning.intakeLingerMs } : {}),
      }).start()
    : undefined;

  if (runs("scheduler")) {
    for (const f of d.features) {
      const stop = await f.startScheduler?.();
      if (stop) stops.push(stop);
    }
    await reassertSchedules(d, logger);
  }

  const running: RunningRoles = {
    workers: started?.workers ?? [],
    ...(started ? { workerHealth: started.health } : {}),
    workspaces: d.workspaces,
    stop: async () => undefined,
  };
  const workers = running.workerHealth ?? elsewhere?.health;
  if (runs("web")) Object.assign(running, await startWeb(s, d, workers, elsewhere?.metrics));
  if (r.watch !== false && (workers || running.receiver)) {
    stops.push(
      startProcessWatch({
        redis: s.redis,
        keys: s.keys,
        workers,
        spool: running.receiver?.spool,
        overdue: s.overdue,
        ops: s.ops,
        logger,
        intakeStalledMs: s.tuning.intakeStalledMs,
        workersFineHoldMs: s.tuning.workersFineHoldMs,
        intervalMs: s.tuning.healthWatchMs,
      }),
    );
  }

  running.stop = async () => {
    const failed = debugOnFailure(logger, "stopping");
    for (const stop of stops) await stop().catch(failed);
    // Stop accepting, then drop idle and half-read connections (a refused oversized body
    // keeps its socket open), so close() can finish.
    const { server } = running;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server?.closeIdleConnections();
    server?.closeAllConnections();
    await closed;
    await pump?.close();
    await started?.close();
    await running.receiver?.close();
  };
  return running;
}
