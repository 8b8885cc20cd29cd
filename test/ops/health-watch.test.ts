import { describe, expect, it, vi } from "vitest";
import type { WorkerProbe } from "../../src/jobs/worker-health.js";
import { createLogger, silentLogger } from "../../src/log.js";
import {
  INITIAL_WATCH,
  judgeHealth,
  startHealthWatch,
  WORKERS_FINE_HOLD_MS,
  type HealthSample,
  type WatchState,
} from "../../src/ops/health-watch.js";
import {
  INTAKE_STALLED,
  JOBS_OVERDUE,
  SPOOL_GROWING,
  WORKERS_CANNOT_FETCH,
} from "../../src/ops/incidents.js";
import { renderStatus } from "../../src/slack/render/status.js";
import type { StatusReport } from "../../src/status/status-report.js";

const run = (samples: HealthSample[], start: WatchState = INITIAL_WATCH) => {
  let state = start;
  const actions = [];
  for (const s of samples) {
    const j = judgeHealth(state, s);
    state = j.state;
    actions.push(...j.actions);
  }
  return { state, actions };
};
const crossslot = {
  name: "{deliveries-0}",
  ok: false,
  reason: "fetching jobs fails: CROSSSLOT Keys in request don't hash to the same slot",
};
const fine = { name: "{deliveries-0}", ok: true };

describe("the health watch", () => {
  /** One look at `atS` seconds, its workers as given. */
  const workersAt = (atS: number, ...workers: WorkerProbe[]): HealthSample => ({
    workers,
    redisAnswers: true,
    spool: undefined,
    atMs: atS * 1_000,
  });
  const holdS = WORKERS_FINE_HOLD_MS / 1_000;

  it("alerts once when workers cannot fetch on two looks in a row, with /readyz's reason, and resolves once they have fetched for a while", () => {
    const one = run([workersAt(0, crossslot)]);
    expect(one.actions).toEqual([]); // one bad look is a blip
    const r = run([
      workersAt(0, crossslot),
      workersAt(15, crossslot),
      workersAt(30, crossslot),
      workersAt(45, fine),
      workersAt(45 + holdS - 1, fine),
    ]);
    expect(r.actions.map((a) => [a.kind, a.incident])).toEqual([["alert", WORKERS_CANNOT_FETCH]]);
    expect(r.actions[0]?.text).toContain("{deliveries-0}: fetching jobs fails: CROSSSLOT");
    expect(r.actions[0]?.text).toContain("digests are not going out");
    // Fine on every look for the hold: over, and said.
    expect(run([workersAt(45 + holdS, fine)], r.state).actions).toEqual([
      { kind: "resolve", incident: WORKERS_CANNOT_FETCH, text: "Workers fetch jobs again." },
    ]);
  });

  it("one outage that flaps is one alert: fine for a look, then failing again, is not a new incident", () => {
    // Around a Redis restart (test/chaos/aof-restart.test.ts): failing, fine for one look, then
    // failing again as what the restart left behind surfaces (a job whose lock was lost).
    const flapping = run([
      workersAt(0, crossslot),
      workersAt(0.5, crossslot),
      workersAt(1, fine),
      workersAt(1.5, crossslot),
      workersAt(2, crossslot),
      workersAt(2.5, crossslot),
      workersAt(3, fine),
      // One bad look inside the hold starts it again.
      workersAt(3 + holdS - 5, crossslot),
      workersAt(3 + holdS, fine),
      workersAt(3 + 2 * holdS - 1, fine),
    ]);
    expect(flapping.actions.map((a) => [a.kind, a.incident])).toEqual([["alert", WORKERS_CANNOT_FETCH]]);
    const over = run([workersAt(3 + 2 * holdS, fine)], flapping.state);
    expect(over.actions.map((a) => [a.kind, a.incident])).toEqual([["resolve", WORKERS_CANNOT_FETCH]]);
    // Another outage minutes later is a new incident: told again, once.
    const again = run(
      [workersAt(600, crossslot), workersAt(615, crossslot), workersAt(630, crossslot)],
      over.state,
    );
    expect(again.actions.map((a) => [a.kind, a.incident])).toEqual([["alert", WORKERS_CANNOT_FETCH]]);
  });

  it("a process without workers, or with every worker fine, has nothing to hold", () => {
    expect(run([workersAt(0, fine), workersAt(15, fine)]).actions).toEqual([]);
    expect(run([{ workers: undefined, redisAnswers: true, spool: undefined, atMs: 0 }]).actions).toEqual([]);
    // A hold of 0: the first fine look closes the incident (the watch before the hold).
    const open = run([workersAt(0, crossslot), workersAt(1, crossslot)]).state;
    expect(
      judgeHealth(open, workersAt(2, fine), { workersFineHoldMs: 0 }).actions.map((a) => a.kind),
    ).toEqual(["resolve"]);
  });

  it("the running watch holds the workers' incident open through a flap, then closes it once", async () => {
    const told: string[] = [];
    let looks = 0;
    // Bad, bad, fine, bad, bad, then fine from the sixth look on.
    const badAt = new Set([1, 2, 4, 5]);
    const stop = startHealthWatch(
      {
        sample: async () => {
          looks++;
          return {
            workers: [badAt.has(looks) ? crossslot : fine],
            redisAnswers: true,
            spool: undefined,
            atMs: Date.now(),
          };
        },
        workersFineHoldMs: 100,
        ops: {
          alert: async (incident) => {
            told.push(`alert ${incident}`);
            return true;
          },
          resolve: async (incident) => {
            told.push(`resolve ${incident}`);
            return true;
          },
        },
        logger: silentLogger,
      },
      10,
    );
    try {
      await vi.waitFor(() => expect(told).toContain(`resolve ${WORKERS_CANNOT_FETCH}`), { timeout: 3_000 });
    } finally {
      await stop();
    }
    expect(told).toEqual([`alert ${WORKERS_CANNOT_FETCH}`, `resolve ${WORKERS_CANNOT_FETCH}`]);
  });

  it("a spool that only grows while Redis answers is an alert; while Redis is down it is the spool's job", () => {
    const growing = (redisAnswers: boolean) =>
      [1, 5, 9, 14, 20].map((spool) => ({ workers: undefined, redisAnswers, spool, atMs: 0 }));
    expect(run(growing(false)).actions).toEqual([]);
    const r = run([...growing(true), { workers: undefined, redisAnswers: true, spool: 25, atMs: 0 }]);
    expect(r.actions.map((a) => [a.kind, a.incident])).toEqual([["alert", SPOOL_GROWING]]);
    expect(r.actions[0]?.text).toContain("20 waiting, 19 more than 4 checks ago");
    const drained = run([{ workers: undefined, redisAnswers: true, spool: 0, atMs: 0 }], r.state);
    expect(drained.actions.map((a) => a.kind)).toEqual(["resolve"]);
    // A spool that drains between looks never alerts.
    expect(
      run([3, 5, 4, 6, 8].map((spool) => ({ workers: undefined, redisAnswers: true, spool, atMs: 0 })))
        .actions,
    ).toEqual([]);
  });

  const look = (atS: number, head: string | undefined, waiting: number, receivedAtS = 0): HealthSample => ({
    workers: undefined,
    redisAnswers: true,
    spool: undefined,
    atMs: atS * 1_000,
    intake: head ? { waiting, oldest: { deliveryId: head, receivedAtMs: receivedAtS * 1_000 } } : { waiting },
  });
  /** A process that has looked before and found nothing wrong. */
  const settled: WatchState = { ...INITIAL_WATCH, intakeAlerted: false };

  it("an intake whose head stays put past the limit is an alert; a backlog whose head moves is not", () => {
    // A long backlog: every look finds an old delivery at the head, a different one each time.
    const draining = run([look(100, "d1", 5_000), look(115, "d40", 4_000), look(130, "d90", 3_000)], settled);
    expect(draining.actions).toEqual([]);
    // The same delivery at the head on the looks after first sight, older than 60 s: one alert.
    const stuck = run(
      [look(50, "d1", 1_233), look(65, "d1", 1_233), look(80, "d1", 1_234), look(95, "d1", 1_234)],
      settled,
    );
    expect(stuck.actions.map((a) => [a.kind, a.incident])).toEqual([["alert", INTAKE_STALLED]]);
    expect(stuck.actions[0]?.text).toContain("1,234 deliveries wait in Redis, the oldest for 80 s");
    expect(stuck.actions[0]?.text).toContain("ROLE=worker");
    // One delivery: no "oldest".
    const one = run([look(50, "d1", 1), look(65, "d1", 1), look(80, "d1", 1)], settled);
    expect(one.actions[0]?.text).toContain("1 delivery has waited in Redis for 80 s");
    // Not yet 60 s old: a head that waits a little is not a stall.
    expect(run([look(10, "d1", 1), look(25, "d1", 1), look(40, "d1", 1)], settled).actions).toEqual([]);
    // Unreadable (Redis says so itself): the judgement stands, no resolve.
    const unread = run(
      [{ workers: undefined, redisAnswers: false, spool: undefined, atMs: 100_000 }],
      stuck.state,
    );
    expect(unread.actions).toEqual([]);
    // Moved on: resolved, once.
    const moved = run([look(110, undefined, 0), look(125, undefined, 0)], unread.state);
    expect(moved.actions.map((a) => [a.kind, a.incident])).toEqual([["resolve", INTAKE_STALLED]]);
  });

  it("a process's first look closes an intake incident another process left open, once the intake looks fine", () => {
    // The incident lives in Redis: a restarted process does not know whether it is open.
    expect(run([look(10, undefined, 0)]).actions.map((a) => [a.kind, a.incident])).toEqual([
      ["resolve", INTAKE_STALLED],
    ]);
    expect(run([look(10, "d1", 3, 5)]).actions.map((a) => a.kind)).toEqual(["resolve"]);
    // An old head at first sight is undecided: closed only if it moves, alerted if it stays.
    expect(run([look(100, "d1", 3)]).actions).toEqual([]);
    expect(run([look(100, "d1", 3), look(115, "d2", 2)]).actions.map((a) => a.kind)).toEqual(["resolve"]);
    expect(
      run([look(100, "d1", 3), look(115, "d1", 3), look(130, "d1", 3)]).actions.map((a) => a.kind),
    ).toEqual(["alert"]);
  });

  it("jobs overdue are one alert naming the queue and shard, kept while unreadable, resolved once they move", () => {
    const at = (overdue: HealthSample["overdue"]): HealthSample => ({
      workers: [fine],
      redisAnswers: true,
      spool: undefined,
      atMs: 0,
      overdue,
    });
    const late = [
      { queue: "{slack-out-3}", state: "delayed" as const, jobs: 7, forMs: 68_000 },
      { queue: "{deliveries-1}", state: "waiting" as const, jobs: 1, forMs: 61_000 },
    ];
    const r = run([at([]), at(late), at(late), at(undefined), at(late)]);
    expect(r.actions.map((a) => [a.kind, a.incident])).toEqual([
      // The first look closes an incident another process may have left open (posted only if it was).
      ["resolve", JOBS_OVERDUE],
      ["alert", JOBS_OVERDUE],
    ]);
    expect(r.actions[1]?.text).toBe(
      "Jobs are overdue, so digests to some channels are not going out: 7 jobs delayed past their time, the oldest by 68 s (queue slack-out, shard 3); 1 job waiting, and no worker has taken the next one for 61 s (queue deliveries, shard 1). No worker is moving them; /readyz answers 503 with the same words on the processes that run those workers. Nothing is lost (the jobs wait in Redis); if it lasts, restart those worker processes.",
    );
    const moved = run([at([]), at([])], r.state);
    expect(moved.actions).toEqual([
      { kind: "resolve", incident: JOBS_OVERDUE, text: "Overdue jobs are moving again." },
    ]);
    // Many queues: three named, the rest counted.
    const many = Array.from({ length: 5 }, (_, i) => ({
      queue: `{slack-out-${i}}`,
      state: "delayed" as const,
      jobs: 2,
      forMs: 70_000,
    }));
    expect(run([at(many)]).actions[0]?.text).toContain("(queue slack-out, shard 2) (and 2 more).");
  });

  it("a Redis that never answers holds neither the watch nor its stop: the log says what could not be stored", async () => {
    const lines: { level: number; incident?: string; msg: string }[] = [];
    const logger = createLogger({
      level: "info",
      destination: { write: (l: string) => void lines.push(JSON.parse(l) as (typeof lines)[number]) },
    });
    const never = new Promise<boolean>(() => undefined);
    let looks = 0;
    const stop = startHealthWatch(
      {
        // The first look finds the intake empty: it closes any incident left open, in Redis.
        sample: async () => {
          looks++;
          return {
            workers: undefined,
            redisAnswers: false,
            spool: undefined,
            atMs: 0,
            intake: { waiting: 0 },
          };
        },
        ops: { alert: () => never, resolve: () => never },
        logger,
      },
      10,
    );
    while (looks === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await stop();
    expect(Date.now() - started).toBeLessThan(3_500);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        incident: INTAKE_STALLED,
        msg: "Acknowledged webhook deliveries reach the workers again.",
      }),
    );
  }, 10_000);

  it("status shows the watch's incidents in plain words, not their internal names", () => {
    const report: StatusReport = {
      at: "2026-11-24T02:00:00.000Z",
      redis: { ok: true, error: undefined },
      deliveries: [],
      silence: undefined,
      silenceThresholdMs: 3_600_000,
      queues: [],
      deadLetters: { total: 0, kept: 0, byReason: {} },
      spool: 12,
      api: undefined,
      lastUnauthorizedAt: undefined,
      subscriptions: { total: 0, channels: 0, paused: [] },
      openAlerts: [WORKERS_CANNOT_FETCH, SPOOL_GROWING, INTAKE_STALLED],
    };
    const m = renderStatus(report);
    const text = JSON.stringify(m.blocks);
    expect(text).toContain("Workers cannot fetch jobs");
    expect(text).toContain("piling up on disk");
    expect(text).toContain("Digests are on hold");
    expect(text).not.toContain(INTAKE_STALLED);
    // Only the watch's incidents are open: no empty "open operator alerts" line.
    expect(text).not.toContain("Open operator alerts");
    expect(text).not.toContain(WORKERS_CANNOT_FETCH);
    expect(text).not.toContain(SPOOL_GROWING);
    expect(m.text).not.toContain("all good");
  });
});
