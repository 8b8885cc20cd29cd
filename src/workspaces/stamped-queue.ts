import { randomUUID } from "node:crypto";
import type { JobsOptions, Queue } from "bullmq";
import { jobId } from "../jobs/job-types.js";

/** What every job of a workspace carries, so the worker knows whose it is. */
export interface WorkspaceStamp {
  workspaceId?: string;
}

const scopedId = (workspaceId: string, id: string) => jobId("w", workspaceId, id);

/**
 * One workspace's view of a shared queue: every job it adds carries `workspaceId`, and job and
 * scheduler ids are prefixed with it, so two workspaces that make the "same" job (same channel,
 * thread or delivery id) never collide or de-duplicate each other. Schedulers it lists are its own.
 * Everything else passes through to the shared queue.
 */
export function stampQueue<Q extends object>(queue: Q, workspaceId: string): Q {
  // Queue or ShardedQueue: only the members this queue has are overridden.
  const q = queue as unknown as Queue & { queueFor?: (key: string) => Queue };
  const own = jobId("w", workspaceId, "");
  const stampData = (data: unknown) => ({ ...(data as object), workspaceId });
  // Every job gets an id that names its workspace (a random one when the caller gave none), so
  // per-workspace queue depth is read from ids alone (queue-depth.ts).
  const stampOpts = (opts: JobsOptions | undefined): JobsOptions => ({
    ...opts,
    jobId: scopedId(workspaceId, opts?.jobId ?? randomUUID()),
  });
  const overrides: Record<string, unknown> = {
    add: (name: string, data: unknown, opts?: JobsOptions) => q.add(name, stampData(data), stampOpts(opts)),
    addBulk: (jobs: { name: string; data: unknown; opts?: JobsOptions }[]) =>
      q.addBulk(jobs.map((j) => ({ ...j, data: stampData(j.data), opts: stampOpts(j.opts) }))),
    getJob: (id: string) => q.getJob(scopedId(workspaceId, id)),
    upsertJobScheduler: (
      id: string,
      repeat: Parameters<Queue["upsertJobScheduler"]>[1],
      template?: { name?: string; data?: unknown; opts?: JobsOptions },
    ) =>
      q.upsertJobScheduler(scopedId(workspaceId, id), repeat, {
        ...template,
        data: stampData(template?.data ?? {}),
      }),
    getJobScheduler: (id: string) => q.getJobScheduler(scopedId(workspaceId, id)),
    removeJobScheduler: (id: string) =>
      id.startsWith(own) ? q.removeJobScheduler(id) : q.removeJobScheduler(scopedId(workspaceId, id)),
    queueFor: (key: string) => (q.queueFor ? stampQueue(q.queueFor(key), workspaceId) : undefined),
    getJobSchedulers: async (start?: number, end?: number, asc?: boolean) => {
      const all = await q.getJobSchedulers(start, end, asc);
      // Its own only, under their unprefixed ids (what the caller scheduled).
      return all.filter((j) => j.key.startsWith(own)).map((j) => ({ ...j, key: j.key.slice(own.length) }));
    },
  };
  return new Proxy(queue, {
    get(target, prop, receiver) {
      if (typeof prop === "string" && prop in overrides && prop in target) return overrides[prop];
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
