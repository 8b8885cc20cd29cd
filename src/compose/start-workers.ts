import { UnrecoverableError, type Job, type Processor } from "bullmq";
import { startWorkers, type StartedWorkers, type WorkerSpec } from "../jobs/create-worker.js";
import type { Logger } from "../log.js";
import type { BoundWorker } from "./app-workspace.js";
import type { Services } from "./build-services.js";
import type { Deployment } from "./deployment.js";

/** Said when a job names no workspace: it is refused, never run as anyone's. */
export const NO_WORKSPACE =
  "refused: the job names no workspace (every job is made by a workspace's producer)";

/**
 * A job's processor: the job's workspace is resolved first (its `workspaceId`), and its own
 * processor runs it. A job that names none is refused for good (BullMQ keeps it failed, with the
 * reason); a job of a workspace that is gone (uninstalled, revoked) ends without any Slack call.
 */
function perJob(
  w: BoundWorker & { processor: NonNullable<BoundWorker["processor"]> },
  d: Deployment,
  logger: Logger,
): Processor {
  const make = w.processor;
  return async (job: Job, token?: string) => {
    const id = d.idOfJob(job.data);
    if (!id) throw new UnrecoverableError(NO_WORKSPACE);
    const ws = await d.workspaces.get(id);
    if (!ws) {
      logger.info({ jobId: job.id, workspace: id }, "job of a workspace that is gone: ended, nothing sent");
      return undefined;
    }
    return make(ws)(job, token);
  };
}

/**
 * A deployment-wide tick (one job scheduler for the deployment: reconcile, alerts): its work runs
 * for each workspace connected to a service, a few at a time; one that fails does not stop the others.
 */
function perTick(
  w: BoundWorker & { eachWorkspace: NonNullable<BoundWorker["eachWorkspace"]> },
  d: Deployment,
  logger: Logger,
): Processor {
  const each = w.eachWorkspace;
  const dueWhen = w.dueWhen;
  return async (job: Job) => {
    // Only the workspaces that have something for this tick are built and visited.
    const among = dueWhen ? await d.having(dueWhen) : undefined;
    const r = await d.workspaces.each(
      (ws) => each(ws, job),
      (id, err) => logger.warn({ err, jobId: job.id, workspace: id }, "job failed for one workspace"),
      (ws) => ws.status.insightConnected,
      among,
    );
    return { workspaces: r.workspaces, failed: r.failed, notConnected: r.skipped };
  };
}

/**
 * The features' workers of the roles this process runs, one per shard of each queue, through
 * the one worker factory (jobs/create-worker.ts).
 */
export function startFeatureWorkers(
  s: Services,
  d: Deployment,
  runs: (role: "worker" | "scheduler") => boolean,
): StartedWorkers | undefined {
  const specs: WorkerSpec[] = d.features
    .flatMap((f) => f.workers)
    .filter((w) => runs(w.role))
    .flatMap((w) => {
      const processor = w.processor
        ? perJob({ ...w, processor: w.processor }, d, s.logger)
        : w.eachWorkspace
          ? perTick({ ...w, eachWorkspace: w.eachWorkspace }, d, s.logger)
          : undefined;
      if (!processor) return [];
      // One worker per shard of a sharded queue: every shard has a consumer.
      return s.queues.namesOf(w.queue).map((queue) => ({
        queue,
        processor,
        concurrency: w.concurrency,
        ...(w.settings ? { settings: w.settings } : {}),
      }));
    });
  if (specs.length === 0) return undefined;
  const { config } = s;
  return startWorkers(
    specs,
    {
      redisUrl: config.redis.url,
      clusterNodes: config.redis.clusterNodes,
      prefix: config.redis.prefix,
      logger: s.logger,
      metrics: s.metrics,
      tuning: s.tuning,
    },
    (name) => s.queues.byName(name),
  );
}
