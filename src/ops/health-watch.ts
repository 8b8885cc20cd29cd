import type { OverdueQueue } from "../domain/overdue.js";
import { intakeHead, type IntakeHead } from "../intake/view.js";
import type { OverdueJobs } from "../jobs/overdue-jobs.js";
import type { WorkerHealth, WorkerProbe } from "../jobs/worker-health.js";
import type { StateKeys } from "../store/keys.js";
import type { Logger } from "../log.js";
import { overdueText } from "../slack/render/overdue-text.js";
import { durationText, plural } from "../slack/render/wording.js";
import { withTimeout, type RedisClient } from "../store/redis.js";
import { onTheBeat } from "../on-the-beat.js";
import type { OpsNotifier } from "./ops-notifier.js";

import { INTAKE_STALLED, JOBS_OVERDUE, SPOOL_GROWING, WORKERS_CANNOT_FETCH } from "./incidents.js";

/** One look at this process: its workers' probes (as /readyz sees them), Redis, the spool. */
export interface HealthSample {
  /** Undefined when this process runs no workers. */
  workers: WorkerProbe[] | undefined;
  redisAnswers: boolean;
  /** Undefined when this process runs no receiver. */
  spool: number | undefined;
  /** Undefined when it could not be read (Redis is the problem then, and says so itself). */
  intake?: IntakeHead | undefined;
  /** Queues with jobs overdue (jobs/overdue-jobs.ts); undefined when they could not be read. */
  overdue?: readonly OverdueQueue[] | undefined;
  /** When the sample was taken (ms since the epoch). */
  atMs: number;
}

export interface WatchState {
  /** Consecutive samples with a worker not ok. */
  failingSamples: number;
  /** Spool sizes of the last samples, oldest first. */
  spoolHistory: number[];
  workersAlerted: boolean;
  /**
   * While the workers' incident is open: since when every look has found them fine (ms since
   * the epoch); unset while a look finds one not ok.
   */
  workersFineSinceMs?: number;
  spoolAlerted: boolean;
  /** The delivery at the intake's head at the last look, and how many looks in a row found it there too late. */
  intakeHead?: string;
  stalledSamples: number;
  /**
   * Undefined until the first look: the incident is the deployment's (kept in Redis), so one
   * raised by a process since restarted may still be open, and this process closes it once the
   * intake looks fine.
   */
  intakeAlerted?: boolean;
  /** Undefined until the first look, as `intakeAlerted`: the incident is the deployment's. */
  overdueAlerted?: boolean;
}

export const INITIAL_WATCH: WatchState = {
  failingSamples: 0,
  spoolHistory: [],
  workersAlerted: false,
  spoolAlerted: false,
  stalledSamples: 0,
};

export type WatchAction =
  { kind: "alert"; incident: string; text: string } | { kind: "resolve"; incident: string; text: string };

/** What Redis answers a write at maxmemory (maxmemory-policy noeviction). */
const OUT_OF_MEMORY = /OOM command not allowed/;

/** Samples in a row before an alert: one bad look is a blip (a failover takes a few seconds). */
export const FAILING_SAMPLES = 2;
/**
 * How long workers must be found fine, look after look, before their incident is over (and a
 * new failure alerts again). A Redis that comes back leaves errors behind: a job that held a lock
 * Redis lost fails to finish ("Missing lock for job"), and its worker reads not ok until its next
 * job. Closed at the first fine look, one outage was told twice. A minute is four looks at the
 * default interval; an outage minutes after another is a new one, and told.
 */
export const WORKERS_FINE_HOLD_MS = 60_000;
/** The spool grew at each of this many samples in a row, while Redis answered. */
export const GROWING_SAMPLES = 4;
/**
 * The intake's head is stalled when the same delivery is still there, this long after it was
 * received (a pump moves a batch in milliseconds; a long backlog has a moving head).
 */
export const INTAKE_STALLED_MS = 60_000;

/**
 * The watch's decision, pure: workers that cannot fetch (same reasons as /readyz), and a spool
 * that only grows while Redis answers ("Redis answers" is not "deliveries reach the queues").
 */
export function judgeHealth(
  prev: WatchState,
  s: HealthSample,
  o: { intakeStalledMs?: number; workersFineHoldMs?: number } = {},
): { state: WatchState; actions: WatchAction[] } {
  const actions: WatchAction[] = [];
  const workers = judgeWorkers(prev, s, o.workersFineHoldMs ?? WORKERS_FINE_HOLD_MS);
  actions.push(...workers.actions);

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
        text: `Webhook deliveries are piling up on disk while Redis answers (${s.spool} waiting, ${s.spool - first} more than ${GROWING_SAMPLES} checks ago): they are not reaching the queues. Check /readyz and the logs: Redis may refuse writes (OOM at maxmemory), or be a cluster reached without REDIS_CLUSTER_NODES (CROSSSLOT).`,
      });
      spoolAlerted = true;
    } else if (s.spool === 0 && spoolAlerted) {
      actions.push({ kind: "resolve", incident: SPOOL_GROWING, text: "The webhook spool has drained." });
      spoolAlerted = false;
    }
  }
  const intake = judgeIntake(prev, s, o.intakeStalledMs ?? INTAKE_STALLED_MS);
  actions.push(...intake.actions);
  const overdue = judgeOverdueJobs(prev.overdueAlerted, s.overdue);
  actions.push(...overdue.actions);
  return {
    state: {
      ...workers.state,
      spoolHistory,
      spoolAlerted,
      ...intake.state,
      ...(overdue.alerted !== undefined ? { overdueAlerted: overdue.alerted } : {}),
    },
    actions,
  };
}

type WorkersState = Pick<WatchState, "failingSamples" | "workersAlerted" | "workersFineSinceMs">;

/**
 * Workers that cannot fetch (same reasons as /readyz): told after FAILING_SAMPLES bad looks in a
 * row, over once every look has found them fine for `fineHoldMs`. A bad look meanwhile, even
 * one, starts that hold again: a flapping outage is one incident, told once.
 */
function judgeWorkers(
  prev: WatchState,
  s: HealthSample,
  fineHoldMs: number,
): { state: WorkersState; actions: WatchAction[] } {
  const bad = (s.workers ?? []).filter((w) => !w.ok);
  const failingSamples = bad.length > 0 ? prev.failingSamples + 1 : 0;
  if (!prev.workersAlerted) {
    if (failingSamples < FAILING_SAMPLES)
      return { state: { failingSamples, workersAlerted: false }, actions: [] };
    return {
      state: { failingSamples, workersAlerted: true },
      actions: [{ kind: "alert", incident: WORKERS_CANNOT_FETCH, text: cannotFetchText(bad) }],
    };
  }
  if (bad.length > 0) return { state: { failingSamples, workersAlerted: true }, actions: [] };
  const fineSinceMs = prev.workersFineSinceMs ?? s.atMs;
  if (s.atMs - fineSinceMs < fineHoldMs) {
    return { state: { failingSamples, workersAlerted: true, workersFineSinceMs: fineSinceMs }, actions: [] };
  }
  return {
    state: { failingSamples, workersAlerted: false },
    actions: [{ kind: "resolve", incident: WORKERS_CANNOT_FETCH, text: "Workers fetch jobs again." }],
  };
}

/** The alert for workers not ok: the first three, with /readyz's reasons. */
function cannotFetchText(bad: readonly WorkerProbe[]): string {
  const shown = bad
    .slice(0, 3)
    .map((w) => `${w.name}: ${w.reason ?? "not ok"}`)
    .join("; ");
  const more = bad.length > 3 ? ` (and ${bad.length - 3} more)` : "";
  // Redis at maxmemory refuses every write: said first, in words, with what to do.
  return bad.some((w) => OUT_OF_MEMORY.test(w.reason ?? ""))
    ? `Redis is out of memory (maxmemory reached) and refuses writes, so workers cannot fetch jobs and digests are not going out. Webhook deliveries are still acknowledged and kept on disk until Redis takes writes again; nothing is lost. Free memory or raise maxmemory (keep maxmemory-policy noeviction). /readyz answers 503: ${shown}${more}.`
    : `Workers cannot fetch jobs, so digests are not going out: ${shown}${more}. /readyz answers 503 with the same reason.`;
}

/**
 * Jobs overdue (delayed past their time, or waiting with no worker taking them): the workers
 * of those queues have stopped without saying so, which their own probes may not see. The
 * bound is the look's own (a minute): one look is enough.
 */
function judgeOverdueJobs(
  alerted: boolean | undefined,
  overdue: readonly OverdueQueue[] | undefined,
): { alerted: boolean | undefined; actions: WatchAction[] } {
  if (!overdue) return { alerted, actions: [] }; // unreadable: the last judgement stands
  if (overdue.length > 0 && alerted !== true) {
    const shown = overdue.slice(0, 3).map(overdueText).join("; ");
    const more = overdue.length > 3 ? ` (and ${overdue.length - 3} more)` : "";
    return {
      alerted: true,
      actions: [
        {
          kind: "alert",
          incident: JOBS_OVERDUE,
          text: `Jobs are overdue, so digests to some channels are not going out: ${shown}${more}. No worker is moving them; /readyz answers 503 with the same words on the processes that run those workers. Nothing is lost (the jobs wait in Redis); if it lasts, restart those worker processes.`,
        },
      ],
    };
  }
  if (overdue.length === 0 && alerted !== false) {
    // Said (and posted) only when the incident was open.
    return {
      alerted: false,
      actions: [{ kind: "resolve", incident: JOBS_OVERDUE, text: "Overdue jobs are moving again." }],
    };
  }
  return { alerted, actions: [] };
}

/**
 * Acknowledged deliveries that do not reach the workers: no process runs the worker role, or
 * its intake pump cannot move them. Nothing is lost (they wait in Redis), but no digest goes
 * out, and the workers' own probes cannot see it.
 */
function judgeIntake(
  prev: WatchState,
  s: HealthSample,
  stalledMs: number,
): { state: Pick<WatchState, "intakeHead" | "stalledSamples" | "intakeAlerted">; actions: WatchAction[] } {
  const actions: WatchAction[] = [];
  // Unreadable: the Redis check speaks for it; the last judgement stands.
  if (!s.intake)
    return { state: intakeState(prev.intakeHead, prev.stalledSamples, prev.intakeAlerted), actions };
  const { waiting, oldest } = s.intake;
  const ageMs = oldest ? s.atMs - oldest.receivedAtMs : 0;
  const stalled = oldest !== undefined && oldest.deliveryId === prev.intakeHead && ageMs > stalledMs;
  const stalledSamples = stalled ? prev.stalledSamples + 1 : 0;
  let intakeAlerted = prev.intakeAlerted;
  // On a first look an old head is not known to be stalled yet: the next looks decide.
  const moved =
    oldest !== undefined && prev.intakeHead !== undefined && oldest.deliveryId !== prev.intakeHead;
  const fine =
    !stalled && (intakeAlerted !== undefined || oldest === undefined || ageMs <= stalledMs || moved);
  if (stalledSamples >= FAILING_SAMPLES && intakeAlerted !== true) {
    const since = durationText(ageMs);
    const what =
      waiting === 1
        ? `1 delivery has waited in Redis for ${since}`
        : `${plural(waiting, "delivery", "deliveries")} wait in Redis, the oldest for ${since}`;
    actions.push({
      kind: "alert",
      incident: INTAKE_STALLED,
      text: `Webhook deliveries are acknowledged but not reaching the workers: ${what}. Nothing is lost, but no digest goes out until a process with ROLE=worker (or all) moves them; if one runs, its log says why it cannot.`,
    });
    intakeAlerted = true;
  } else if (fine && intakeAlerted !== false) {
    // Said (and posted) only when the incident was open.
    actions.push({
      kind: "resolve",
      incident: INTAKE_STALLED,
      text: "Acknowledged webhook deliveries reach the workers again.",
    });
    intakeAlerted = false;
  }
  return { state: intakeState(oldest?.deliveryId, stalledSamples, intakeAlerted), actions };
}

/** The intake's part of the watch's state (optional fields left out, not set to undefined). */
function intakeState(
  intakeHead: string | undefined,
  stalledSamples: number,
  intakeAlerted: boolean | undefined,
): Pick<WatchState, "intakeHead" | "stalledSamples" | "intakeAlerted"> {
  return {
    ...(intakeHead !== undefined ? { intakeHead } : {}),
    stalledSamples,
    ...(intakeAlerted !== undefined ? { intakeAlerted } : {}),
  };
}

/** How long one alert or resolve may take to be stored and queued before the log alone says it. */
const ACTION_TIMEOUT_MS = 2_000;
/** How long stopping the watch waits for a look in flight. */
const STOP_WAIT_MS = 3_000;

export interface HealthWatchDeps {
  sample: () => Promise<HealthSample>;
  /** See INTAKE_STALLED_MS (tests shorten it). */
  intakeStalledMs?: number;
  /** See WORKERS_FINE_HOLD_MS (tests shorten it). */
  workersFineHoldMs?: number;
  ops: Pick<OpsNotifier, "alert" | "resolve">;
  logger: Logger;
}

/** Samples every `intervalMs` and tells the ops channel (and the log, even when Redis cannot take the alert). */
export function startHealthWatch(deps: HealthWatchDeps, intervalMs = 15_000): () => Promise<void> {
  let state = INITIAL_WATCH;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    const judged = judgeHealth(state, await deps.sample(), {
      intakeStalledMs: deps.intakeStalledMs,
      workersFineHoldMs: deps.workersFineHoldMs,
    });
    state = judged.state;
    for (const a of judged.actions) {
      try {
        // Bounded: a Redis that does not answer must not hold the watch (or shutdown) with it.
        await withTimeout(
          a.kind === "alert"
            ? deps.ops.alert(a.incident, a.text, { windowSeconds: 3_600 })
            : deps.ops.resolve(a.incident, a.text),
          ACTION_TIMEOUT_MS,
          "Redis",
        );
      } catch (err) {
        // The alert could not be stored or queued (Redis is the problem): the log still says it.
        deps.logger.error({ err, incident: a.incident }, a.text);
      }
    }
  };
  // On the beat: with the event-loop sampling's look (also 15 s), one wake-up of an idle process.
  const stop = onTheBeat(intervalMs, () => {
    running = running.then(tick).catch((err: unknown) => deps.logger.warn({ err }, "health watch failed"));
  });
  return async () => {
    stop();
    // A look in flight ends within its bounds; shutdown does not wait for more than that.
    await withTimeout(running, STOP_WAIT_MS, "health watch").catch(() => undefined);
  };
}

/** What one process's watch looks at: whichever of its parts run here. */
export interface ProcessWatchParts {
  redis: Pick<RedisClient, "ping" | "llen" | "lindex">;
  keys: Pick<StateKeys, "intake" | "intakeMoving">;
  /** The workers this process runs (worker roles). */
  workers?: Pick<WorkerHealth, "probe"> | undefined;
  /** The receiver's spool (web role). */
  spool?: { sizeOnDisk(): Promise<number> } | undefined;
  /** Jobs no worker moves, in every queue. */
  overdue?: Pick<OverdueJobs, "look"> | undefined;
  ops: Pick<OpsNotifier, "alert" | "resolve">;
  logger: Logger;
  intakeStalledMs?: number | undefined;
  workersFineHoldMs?: number | undefined;
  intervalMs?: number | undefined;
}

/**
 * The one way a process's health watch is started (start-roles, tests): workers that cannot
 * fetch, a spool that only grows while Redis answers, or deliveries that do not leave the intake
 * go to the ops channel. Every process looks at the intake: with no worker role running
 * anywhere, a web process is the one that can tell. Each look is bounded.
 */
export function startProcessWatch(p: ProcessWatchParts): () => Promise<void> {
  return startHealthWatch(
    {
      // Every read at once: one round of replies (an idle process wakes once a look, not ten times).
      sample: async () => {
        const [workers, redisAnswers, spool, intake, overdue] = await Promise.all([
          p.workers?.probe(),
          withTimeout(p.redis.ping(), 900, "Redis").then(
            () => true,
            () => false,
          ),
          p.spool?.sizeOnDisk(),
          withTimeout(intakeHead(p.redis, p.keys), 900, "Redis").catch(() => undefined),
          p.overdue ? withTimeout(p.overdue.look(), 900, "Redis").catch(() => undefined) : undefined,
        ]);
        return { workers, redisAnswers, spool, intake, overdue, atMs: Date.now() };
      },
      ops: p.ops,
      logger: p.logger,
      ...(p.intakeStalledMs ? { intakeStalledMs: p.intakeStalledMs } : {}),
      ...(p.workersFineHoldMs !== undefined ? { workersFineHoldMs: p.workersFineHoldMs } : {}),
    },
    p.intervalMs,
  );
}
