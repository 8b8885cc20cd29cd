import { describe, expect, it } from "vitest";
import {
  detectNegativeSpike,
  detectUnanswered,
  detectVolumeSpike,
  historyStart,
  type AlertSettings,
  type GroupHistory,
  type HistoryThread,
} from "../../src/domain/alerts.js";

const NOW = Date.UTC(2026, 10, 24, 12, 0);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const settings: AlertSettings = {
  groupId: "g1",
  groupName: "Support",
  unansweredAfterHours: 4,
  negativeSpike: true,
  volumeSpike: true,
  setBy: "U1",
  setAt: new Date(NOW - 2 * DAY).toISOString(),
};

let n = 0;
const thread = (agoMs: number, o: Partial<HistoryThread> = {}): HistoryThread => ({
  id: `t${++n}`,
  title: `Thread ${n}`,
  firstMessageDate: new Date(NOW - agoMs).toISOString(),
  sentiment: "neutral",
  isQuestionLed: false,
  ...o,
});

/** `perDay` threads a day spread over `days` days before the last 24 h, `negShare` of them negative. */
function base(days: number, perDay: number, negShare: number): HistoryThread[] {
  const out: HistoryThread[] = [];
  for (let d = 1; d <= days; d++) {
    for (let i = 0; i < perDay; i++) {
      const neg = i < Math.round(perDay * negShare);
      out.push(
        thread(d * DAY + (i + 1) * (DAY / (perDay + 1)), { sentiment: neg ? "negative" : "positive" }),
      );
    }
  }
  return out;
}
const history = (threads: HistoryThread[]): GroupHistory => ({
  threads,
  historyStartMs: historyStart(threads),
  truncated: false,
});

describe("negative spike", () => {
  it("fires at 15 points over the 28-day share with at least 5 negative threads", () => {
    // Base 20% negative; last 24 h 6 of 10 negative (60%).
    const recent = [
      ...Array.from({ length: 6 }, (_, i) => thread((i + 1) * HOUR, { sentiment: "Very negative" })),
      ...Array.from({ length: 4 }, (_, i) => thread((i + 1) * HOUR + 1, { sentiment: "positive" })),
    ];
    const r = detectNegativeSpike(settings, history([...base(28, 10, 0.2), ...recent]), NOW);
    expect(r.fires).toBe(true);
    if (!r.fires) return;
    expect(r.alert.condition).toBe("negative:g1");
    expect(r.alert.threads).toHaveLength(6);
    expect(r.alert.facts).toMatchObject({ kind: "negative", negative: 6, known: 10, share: 0.6 });
    expect(r.alert.facts.kind === "negative" && r.alert.facts.baseShare).toBeCloseTo(0.2);
    // The base is the history before the last 24 hours (27.9 days of it here), in whole days.
    expect(r.alert.facts).toMatchObject({ baseDays: 28 });
  });

  it("says over how many days the base share was taken: a younger history, or 28 for a cut listing", () => {
    const recent = Array.from({ length: 6 }, (_, i) => thread((i + 1) * HOUR, { sentiment: "negative" }));
    const young = detectNegativeSpike(settings, history([...base(10, 10, 0), ...recent]), NOW);
    // History from 10.9 days ago: 9.9 days before the last 24 hours.
    expect(young.fires && young.alert.facts).toMatchObject({ kind: "negative", baseDays: 10 });
    const cut = { ...history([...base(10, 10, 0), ...recent]), truncated: true };
    const long = detectNegativeSpike(settings, cut, NOW);
    expect(long.fires && long.alert.facts).toMatchObject({ kind: "negative", baseDays: 28 });
  });

  it("does not fire 14 points over, nor on a quiet group with a high share from tiny numbers", () => {
    // 20% base; 7 of 20 = 35% (15 points: fires) vs 34% (14 points: not).
    const mk = (neg: number, total: number) => [
      ...Array.from({ length: neg }, (_, i) => thread((i + 1) * 60_000, { sentiment: "negative" })),
      ...Array.from({ length: total - neg }, (_, i) => thread((i + 1) * 61_000, { sentiment: "neutral" })),
    ];
    expect(detectNegativeSpike(settings, history([...base(28, 10, 0.2), ...mk(7, 20)]), NOW).fires).toBe(
      true,
    );
    expect(detectNegativeSpike(settings, history([...base(28, 10, 0.2), ...mk(17, 50)]), NOW)).toEqual({
      fires: false,
      reason: "normal",
    });
    // Quiet group: 4 of 4 threads negative (100%) against a 0% base: too few to say anything.
    expect(detectNegativeSpike(settings, history([...base(28, 1, 0), ...mk(4, 4)]), NOW)).toEqual({
      fires: false,
      reason: "quiet",
    });
  });

  it("no spike alert while the base is still being learned (under 7 days of history)", () => {
    const recent = Array.from({ length: 8 }, (_, i) => thread((i + 1) * HOUR, { sentiment: "negative" }));
    expect(detectNegativeSpike(settings, history([...base(5, 10, 0), ...recent]), NOW)).toEqual({
      fires: false,
      reason: "learning",
    });
    // A listing cut short by the page cap is a busy group, not a new one.
    const cut = { ...history([...base(5, 10, 0), ...recent]), truncated: true };
    expect(detectNegativeSpike(settings, cut, NOW).fires).toBe(true);
  });
});

describe("volume spike", () => {
  it("fires at 3x the usual hourly threads and at least 5", () => {
    // Usual: 48 a day = 2 an hour; last hour 6 = 3x.
    const lastHour = Array.from({ length: 6 }, (_, i) => thread((i + 1) * 5 * 60_000));
    const r = detectVolumeSpike(settings, history([...base(28, 48, 0), ...lastHour]), NOW);
    expect(r.fires).toBe(true);
    if (r.fires) {
      expect(r.alert.condition).toBe("volume:g1");
      expect(r.alert.facts).toMatchObject({ kind: "volume", lastHour: 6, baseDays: 28 });
      expect(r.alert.facts.kind === "volume" && r.alert.facts.usualPerHour).toBeCloseTo(1.93, 2);
      expect(r.alert.threads).toHaveLength(6);
    }
    // 5 against 2 an hour is 2.5x: normal.
    expect(detectVolumeSpike(settings, history([...base(28, 48, 0), ...lastHour.slice(0, 5)]), NOW)).toEqual({
      fires: false,
      reason: "normal",
    });
  });

  it("a quiet group: 4 threads in an hour against almost none is not a spike; nor a base being learned", () => {
    const four = Array.from({ length: 4 }, (_, i) => thread((i + 1) * 60_000));
    expect(detectVolumeSpike(settings, history([...base(28, 1, 0), ...four]), NOW)).toEqual({
      fires: false,
      reason: "quiet",
    });
    const ten = Array.from({ length: 10 }, (_, i) => thread((i + 1) * 60_000));
    expect(detectVolumeSpike(settings, history([...base(6, 1, 0), ...ten]), NOW)).toEqual({
      fires: false,
      reason: "learning",
    });
    expect(detectVolumeSpike(settings, history([...base(7, 1, 0), ...ten]), NOW).fires).toBe(true);
  });
});

describe("unanswered questions", () => {
  const q = (agoMs: number, status: string | undefined) =>
    thread(agoMs, { isQuestionLed: true, questionResponseStatus: status });

  it("question-led threads still awaiting an answer N hours after their first message, each its own condition", () => {
    const due = q(5 * HOUR, "unanswered");
    const pending = q(4 * HOUR, "Awaiting response");
    const fresh = q(3 * HOUR, "unanswered");
    const answered = q(6 * HOUR, "answered");
    const unknown = q(6 * HOUR, undefined);
    const notQuestion = thread(6 * HOUR, { questionResponseStatus: "unanswered" });
    const old = q(3 * DAY, "unanswered"); // overdue before the alert was set up
    const fired = detectUnanswered(
      settings,
      history([due, pending, fresh, answered, unknown, notQuestion, old]),
      NOW,
    );
    expect(fired.map((f) => f.threads[0]?.id)).toEqual([pending.id, due.id]);
    expect(fired.map((f) => f.condition)).toEqual([`unanswered:g1:${pending.id}`, `unanswered:g1:${due.id}`]);
    expect(detectUnanswered({ ...settings, unansweredAfterHours: undefined }, history([due]), NOW)).toEqual(
      [],
    );
  });
});
