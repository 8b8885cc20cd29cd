import { describe, expect, it } from "vitest";
import {
  judgeOverdue,
  OVERDUE_AFTER_MS,
  type OverdueMemory,
  type QueueHead,
} from "../../src/domain/overdue.js";
import { overdueText, queueLabel } from "../../src/slack/render/overdue-text.js";

const head = (o: Partial<QueueHead> = {}): QueueHead => ({
  queue: "{slack-out-3}",
  waiting: 0,
  next: undefined,
  delayedDueMs: undefined,
  delayedLate: 0,
  ...o,
});

/** Runs looks in order (each at its own time), returning what the last one found. */
const looks = (steps: { at: number; heads: QueueHead[] }[], bound = 60_000) => {
  let memory: OverdueMemory = new Map();
  let overdue: ReturnType<typeof judgeOverdue>["overdue"] = [];
  for (const s of steps) ({ memory, overdue } = judgeOverdue(memory, s.heads, s.at, bound));
  return { memory, overdue };
};

describe("judgeOverdue", () => {
  it("a delayed job is overdue once its time is more than the bound past, with how many are and by how long", () => {
    const due = 1_000_000;
    expect(
      looks([{ at: due + 60_000, heads: [head({ delayedDueMs: due, delayedLate: 0 })] }]).overdue,
    ).toEqual([]);
    expect(
      looks([{ at: due + 68_000, heads: [head({ delayedDueMs: due, delayedLate: 7 })] }]).overdue,
    ).toEqual([{ queue: "{slack-out-3}", state: "delayed", jobs: 7, forMs: 68_000 }]);
  });

  it("a delayed job due in the future, or only just due, is not overdue", () => {
    const at = 5_000_000;
    const { overdue } = looks([
      {
        at,
        heads: [
          head({ queue: "{slack-out-0}", delayedDueMs: at + 30_000 }),
          head({ queue: "{slack-out-1}", delayedDueMs: at - 2_000 }),
        ],
      },
    ]);
    expect(overdue).toEqual([]);
  });

  it("waiting jobs are overdue when the same ones stay next for more than the bound; a first look only remembers them", () => {
    const stuck = head({ waiting: 12, next: "41|" });
    expect(looks([{ at: 0, heads: [stuck] }]).overdue).toEqual([]);
    expect(
      looks([
        { at: 0, heads: [stuck] },
        { at: 60_000, heads: [stuck] },
      ]).overdue,
    ).toEqual([]);
    expect(
      looks([
        { at: 0, heads: [stuck] },
        { at: 30_000, heads: [stuck] },
        { at: 75_000, heads: [stuck] },
      ]).overdue,
    ).toEqual([{ queue: "{slack-out-3}", state: "waiting", jobs: 12, forMs: 75_000 }]);
  });

  it("waiting jobs that move (a worker took the next one) are not overdue, however long the queue", () => {
    const { overdue, memory } = looks([
      { at: 0, heads: [head({ waiting: 500, next: "1|" })] },
      { at: 50_000, heads: [head({ waiting: 450, next: "51|" })] },
      { at: 100_000, heads: [head({ waiting: 400, next: "101|" })] },
    ]);
    expect(overdue).toEqual([]);
    expect(memory.get("{slack-out-3}")).toEqual({ next: "101|", sinceMs: 100_000 });
  });

  it("an emptied queue is forgotten; an unreadable one (missing from the look) keeps what was remembered", () => {
    const stuck = head({ waiting: 3, next: "9|" });
    const emptied = looks([
      { at: 0, heads: [stuck] },
      { at: 10_000, heads: [head()] },
      { at: 80_000, heads: [stuck] },
    ]);
    expect(emptied.overdue).toEqual([]);
    const unread = looks([
      { at: 0, heads: [stuck] },
      { at: 40_000, heads: [] },
      { at: 70_000, heads: [stuck] },
    ]);
    expect(unread.overdue).toEqual([{ queue: "{slack-out-3}", state: "waiting", jobs: 3, forMs: 70_000 }]);
  });

  it("a queue can be overdue both ways at once, and the bound defaults to a minute", () => {
    expect(OVERDUE_AFTER_MS).toBe(60_000);
    let memory: OverdueMemory = new Map();
    const h = head({ waiting: 2, next: "7|", delayedDueMs: 0, delayedLate: 4 });
    memory = judgeOverdue(memory, [h], 1_000).memory;
    const { overdue } = judgeOverdue(memory, [h], 62_000);
    expect(overdue.map((o) => [o.state, o.jobs])).toEqual([
      ["delayed", 4],
      ["waiting", 2],
    ]);
  });
});

describe("overdue in words", () => {
  it("names the queue and the shard", () => {
    expect(queueLabel("{slack-out-3}")).toBe("slack-out, shard 3");
    expect(queueLabel("{enrich-refresh-0}")).toBe("enrich-refresh, shard 0");
    expect(queueLabel("slack-out-1")).toBe("slack-out, shard 1");
    expect(queueLabel("{weekly}")).toBe("weekly");
    expect(queueLabel("deliveries")).toBe("deliveries");
  });

  it("says what is overdue, how many and for how long, with correct plurals", () => {
    expect(overdueText({ queue: "{slack-out-3}", state: "delayed", jobs: 7, forMs: 68_000 })).toBe(
      "7 jobs delayed past their time, the oldest by 68 s (queue slack-out, shard 3)",
    );
    expect(overdueText({ queue: "{slack-out-0}", state: "delayed", jobs: 1, forMs: 125_000 })).toBe(
      "1 job delayed past its time by 2 min (queue slack-out, shard 0)",
    );
    expect(overdueText({ queue: "{deliveries-2}", state: "waiting", jobs: 1, forMs: 90_000 })).toBe(
      "1 job waiting, and no worker has taken the next one for 2 min (queue deliveries, shard 2)",
    );
  });
});
