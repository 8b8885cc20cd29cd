import type { WorkerProbe } from "../jobs/worker-health.js";
import type { Logger } from "../log.js";
import type { OpsNotifier } from "./ops-notifier.js";

import { SPOOL_GROWING, WORKERS_CANNOT_FETCH } from "../status/status-report.js";

export { SPOOL_GROWING, WORKERS_CANNOT_FETCH };

/** One look at this process: its workers' probes (as /readyz sees them), Redis, the spool. */
export interface HealthSample {
  /** Undefined when this process runs no workers. */
  workers: WorkerProbe[] | undefined;
  redisAnswers: boolean;
  /** Undefined when this process runs no receiver. */
  spool: number | undefined;
}

export interface WatchState {
  /** Consecutive samples with a worker not ok. */
  failingSamples: number;
  /** Spool sizes of the last samples, oldest first. */
  spoolHistory: number[];
  workersAlerted: boolean;
  spoolAlerted: boolean;
}

export const INITIAL_WATCH: WatchState = {
  failingSamples: 0,
  spoolHistory: [],
  workersAlerted: false,
  spoolAlerted: false,
};

export type WatchAction =
  { kind: "alert"; incident: string; text: string } | { kind: "resolve"; incident: string; text: string };

/** Samples in a row before an alert: one bad look is a blip (a failover takes a few seconds). */
export const FAILING_SAMPLES = 2;
/** The spool grew at each of this many samples in a row, while Redis answered. */
export const GROWING_SAMPLES = 4;

/**
 * The watch's decision, pure: workers that cannot fetch (same reasons as /readyz), and a spool
 * that only grows while Redis answers ("Redis answers" is not "deliveries reach the queues").
 */
export function judgeHealth(
  prev: WatchState,
  s: HealthSample,
): { state: WatchState; actions: WatchAction[] } {
  const actions: WatchAction[] = [];
  const bad = (s.workers ?? []).filter((w) => !w.ok);
  const failingSamples = bad.length > 0 ? prev.failingSamples + 1 : 0;
  let workersAlerted = prev.workersAlerted;
  if (failingSamples >= FAILING_SAMPLES && !workersAlerted) {
    const shown = bad
      .slice(0, 3)
      .map((w) => `${w.name}: ${w.reason ?? "not ok"}`)
      .join("; ");
    const more = bad.length > 3 ? ` (and ${bad.length - 3} more)` : "";
    actions.push({
      kind: "alert",
      incident: WORKERS_CANNOT_FETCH,
      text: `Workers cannot fetch jobs, so digests are not going out: ${shown}${more}. /readyz answers 503 with the same reason.`,
    });
    workersAlerted = true;
  } else if (bad.length === 0 && workersAlerted) {
    actions.push({ kind: "resolve", incident: WORKERS_CANNOT_FETCH, text: "Workers fetch jobs again." });
    workersAlerted = false;
  }

  let spoolHistory = prev.spoolHistory;
  let spoolAlerted = prev.spoolAlerted;
  if (s.spool !== undefined) {
    // A spool that grows while Redis is down is the spool doing its job; only "answers" counts.
    spoolHistory = s.redisAnswers ? [...prev.spoolHistory, s.spool].slice(-(GROWING_SAMPLES + 1)) : [];
    const growing =
      spoolHistory.length === GROWING_SAMPLES + 1 &&
      spoolHistory.every((n, i) => i === 0 || n > (spoolHistory[i - 1] ?? 0));
    if (growing && !spoolAlerted) {
      const first = spoolHistory[0] ?? 0;
      actions.push({
        kind: "alert",
        incident: SPOOL_GROWING,
        text: `Webhook deliveries are piling up on disk while Redis answers (${s.spool} waiting, ${s.spool - first} more than ${GROWING_SAMPLES} checks ago): they are not reaching the queues. Check /readyz and the logs (a cluster reached without REDIS_CLUSTER_NODES fails with CROSSSLOT).`,
      });
      spoolAlerted = true;
    } else if (s.spool === 0 && spoolAlerted) {
      actions.push({ kind: "resolve", incident: SPOOL_GROWING, text: "The webhook spool has drained." });
      spoolAlerted = false;
    }
  }
  return { state: { failingSamples, spoolHistory, workersAlerted, spoolAlerted }, actions };
}

export interface HealthWatchDeps {
  sample: () => Promise<HealthSample>;
  ops: Pick<OpsNotifier, "alert" | "resolve">;
  logger: Logger;
}

/** Samples every `intervalMs` and tells the ops channel (and the log, even when Redis cannot take the alert). */
export function startHealthWatch(deps: HealthWatchDeps, intervalMs = 15_000): () => Promise<void> {
  let state = INITIAL_WATCH;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    const judged = judgeHealth(state, await deps.sample());
    state = judged.state;
    for (const a of judged.actions) {
      try {
        if (a.kind === "alert") await deps.ops.alert(a.incident, a.text, { windowSeconds: 3_600 });
        else await deps.ops.resolve(a.incident, a.text);
      } catch (err) {
        // The alert could not be stored or queued (Redis is the problem): the log still says it.
        deps.logger.error({ err, incident: a.incident }, a.text);
      }
    }
  };
  const timer = setInterval(() => {
    running = running.then(tick).catch((err: unknown) => deps.logger.warn({ err }, "health watch failed"));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
