import { describe, expect, it } from "vitest";
import {
  INITIAL_WATCH,
  judgeHealth,
  SPOOL_GROWING,
  WORKERS_CANNOT_FETCH,
  type HealthSample,
  type WatchState,
} from "../../src/ops/health-watch.js";
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
  it("alerts once when workers cannot fetch on two looks in a row, with /readyz's reason, and resolves when they fetch again", () => {
    const one = run([{ workers: [crossslot], redisAnswers: true, spool: undefined }]);
    expect(one.actions).toEqual([]); // one bad look is a blip
    const r = run([
      { workers: [crossslot], redisAnswers: true, spool: undefined },
      { workers: [crossslot], redisAnswers: true, spool: undefined },
      { workers: [crossslot], redisAnswers: true, spool: undefined },
      { workers: [fine], redisAnswers: true, spool: undefined },
    ]);
    expect(r.actions.map((a) => [a.kind, a.incident])).toEqual([
      ["alert", WORKERS_CANNOT_FETCH],
      ["resolve", WORKERS_CANNOT_FETCH],
    ]);
    expect(r.actions[0]?.text).toContain("{deliveries-0}: fetching jobs fails: CROSSSLOT");
    expect(r.actions[0]?.text).toContain("digests are not going out");
  });

  it("a spool that only grows while Redis answers is an alert; while Redis is down it is the spool's job", () => {
    const growing = (redisAnswers: boolean) =>
      [1, 5, 9, 14, 20].map((spool) => ({ workers: undefined, redisAnswers, spool }));
    expect(run(growing(false)).actions).toEqual([]);
    const r = run([...growing(true), { workers: undefined, redisAnswers: true, spool: 25 }]);
    expect(r.actions.map((a) => [a.kind, a.incident])).toEqual([["alert", SPOOL_GROWING]]);
    expect(r.actions[0]?.text).toContain("20 waiting, 19 more than 4 checks ago");
    const drained = run([{ workers: undefined, redisAnswers: true, spool: 0 }], r.state);
    expect(drained.actions.map((a) => a.kind)).toEqual(["resolve"]);
    // A spool that drains between looks never alerts.
    expect(
      run([3, 5, 4, 6, 8].map((spool) => ({ workers: undefined, redisAnswers: true, spool }))).actions,
    ).toEqual([]);
  });

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
      openAlerts: [WORKERS_CANNOT_FETCH, SPOOL_GROWING],
    };
    const m = renderStatus(report);
    const text = JSON.stringify(m.blocks);
    expect(text).toContain("Workers cannot fetch jobs");
    expect(text).toContain("piling up on disk");
    expect(text).not.toContain(WORKERS_CANNOT_FETCH);
    expect(text).not.toContain(SPOOL_GROWING);
    expect(m.text).not.toContain("all good");
  });
});
