import type { JobType, Queue } from "bullmq";
import { jobId } from "../jobs/job-types.js";

/*
 * Per-workspace queue depth, read from job ids alone: every job a workspace adds has an id
 * `w|<workspace>|…` (stamped-queue.ts; its schedulers' jobs `repeat:w|<workspace>|…`), so a
 * LRANGE / ZRANGE of ids says whose each job is without reading any job. Counters kept on add
 * and completion would drift (a de-duplicated add, a removed job); ids cannot.
 */

/** The most ids read per queue and state: the next jobs to run, which is what starvation is about. */
export const DEPTH_SAMPLE = 10_000;

/** How many workspaces /metrics names by rank; the rest are summed under "others". */
export const RANKED_WORKSPACES = 10;

const OWN = /^(?:repeat:)?w\|([^|]+)\|/;

/** The workspace a job id belongs to, if a workspace added it. */
export function workspaceOfJobId(id: string): string | undefined {
  return OWN.exec(id)?.[1];
}

export type IdReader = Pick<Queue, "getRanges">;

/** Jobs of each workspace among the first DEPTH_SAMPLE ids of those states. */
export async function jobsByWorkspace(
  queue: IdReader,
  types: JobType[],
  sample = DEPTH_SAMPLE,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const type of types) {
    for (const id of await queue.getRanges([type], 0, sample - 1, true)) {
      const ws = workspaceOfJobId(id);
      if (ws) out.set(ws, (out.get(ws) ?? 0) + 1);
    }
  }
  return out;
}

/** Waiting means ready to run: in the wait list (or paused) or prioritized. */
export const WAITING_TYPES: JobType[] = ["waiting", "prioritized"];

/**
 * The gauge's values, pure: ranks "1".."N" (the busiest workspaces, 0 where there are fewer)
 * and "others" (every other waiting job, so the ranks and "others" add up to `total`). The
 * label set is the same at every scrape: bounded, and no stale series left behind.
 */
export function rankDepths(
  byWorkspace: ReadonlyMap<string, number>,
  total: number,
  top = RANKED_WORKSPACES,
): { rank: string; jobs: number }[] {
  const sorted = [...byWorkspace.values()].filter((n) => n > 0).sort((a, b) => b - a);
  const ranked = Array.from({ length: top }, (_, i) => ({ rank: String(i + 1), jobs: sorted[i] ?? 0 }));
  const shown = ranked.reduce((sum, r) => sum + r.jobs, 0);
  return [...ranked, { rank: "others", jobs: Math.max(0, total - shown) }];
}

/** One workspace's view of a queue for `status`: its own jobs counted, the workers shared. */
export function ownJobCounts(
  queue: Pick<Queue, "name" | "getRanges" | "getWorkersCount">,
  workspaceId: string,
): Pick<Queue, "name" | "getJobCounts" | "getWorkersCount"> {
  const own = jobId("w", workspaceId, "");
  return {
    name: queue.name,
    getWorkersCount: () => queue.getWorkersCount(),
    getJobCounts: async (...types: JobType[]) => {
      const counts: Record<string, number> = {};
      for (const type of types) {
        const ids = await queue.getRanges(type === "waiting" ? WAITING_TYPES : [type], 0, DEPTH_SAMPLE - 1);
        counts[type] = ids.filter((id) => id.startsWith(own) || id.startsWith(`repeat:${own}`)).length;
      }
      return counts;
    },
  };
}

/** What /metrics sets: the ranked waiting jobs of each queue. */
export interface DepthGauge {
  set(labels: { queue: string; rank: string }, value: number): void;
}

/** Sets `insight_relay_workspace_queue_depth` for every queue; returns each workspace's total waiting. */
export async function refreshWorkspaceDepth(
  gauge: DepthGauge,
  queues: readonly (IdReader & Pick<Queue, "name" | "getJobCounts">)[],
): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  for (const q of queues) {
    const [byWorkspace, counts] = await Promise.all([
      jobsByWorkspace(q, WAITING_TYPES),
      q.getJobCounts(...WAITING_TYPES),
    ]);
    const total = WAITING_TYPES.reduce((sum, t) => sum + (counts[t] ?? 0), 0);
    for (const r of rankDepths(byWorkspace, total)) gauge.set({ queue: q.name, rank: r.rank }, r.jobs);
    for (const [ws, n] of byWorkspace) totals.set(ws, (totals.get(ws) ?? 0) + n);
  }
  return totals;
}

/** Each workspace's waiting jobs over every queue (the admin page). */
export async function waitingByWorkspace(queues: readonly IdReader[]): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  for (const q of queues) {
    for (const [ws, n] of await jobsByWorkspace(q, WAITING_TYPES)) totals.set(ws, (totals.get(ws) ?? 0) + n);
  }
  return totals;
}
