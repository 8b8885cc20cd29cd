import { describe, expect, it } from "vitest";
import { AskedThisWindow } from "../../src/jobs/asked-this-window.js";
import type { MessageEvent } from "../../src/insight/schemas.js";
import {
  isWindowedJobId,
  routeMessageEvent,
  threadWindowPhase,
  type MessageRouteDeps,
} from "../../src/jobs/route-message-event.js";
import { jobId, type AddOptions } from "../../src/jobs/job-types.js";
import type { Subscription } from "../../src/domain/subscription.js";

describe("AskedThisWindow", () => {
  it("holds an id until its window ends, then forgets it", () => {
    const asked = new AskedThisWindow();
    expect(asked.has("counts|C1|t1|7", 1_000)).toBe(false);
    asked.note("counts|C1|t1|7", 5_000, 1_000);
    expect(asked.has("counts|C1|t1|7", 4_999)).toBe(true);
    expect(asked.has("counts|C1|t1|7", 5_000)).toBe(false);
    // Forgotten once looked at past its end.
    expect(asked.has("counts|C1|t1|7", 1_000)).toBe(false);
  });

  it("stays within its bound: expired ids go first, then the oldest", () => {
    const asked = new AskedThisWindow(3);
    asked.note("a", 2_000, 0);
    asked.note("b", 9_000, 0);
    asked.note("c", 9_000, 0);
    // Full at 3: "a" has expired by 2,500 and goes; "b" and "c" stay.
    asked.note("d", 9_000, 2_500);
    expect(["a", "b", "c", "d"].map((id) => asked.has(id, 2_500))).toEqual([false, true, true, true]);
    // Full again, none expired: the oldest ("b") goes.
    asked.note("e", 9_000, 2_600);
    expect(["b", "c", "d", "e"].map((id) => asked.has(id, 2_600))).toEqual([false, true, true, true]);
  });
});

const sub: Subscription = {
  channelId: "C1",
  groupId: "g1",
  groupName: "Group",
  communityId: "c1",
  filters: {},
  createdBy: "U1",
  createdAt: "2026-11-01T00:00:00.000Z",
  delivery: { replies: true },
};
const message = (n: number, threadId = "t1"): MessageEvent => ({
  webhookType: "chatmessage-crud",
  actionType: "created",
  payload: {
    communityId: "c1",
    groupId: "g1",
    threadId,
    messageId: `${threadId}-m${n}`,
    timestamp: "2026-11-27T10:00:00.000Z",
    text: `message ${n}`,
  },
});

describe("routeMessageEvent asks for a card's windowed jobs once a window", () => {
  it("adds the counts and replies jobs on the first message of a window only, and again in the next window", async () => {
    const adds: string[] = [];
    let now = 1_000;
    const deps: MessageRouteDeps = {
      subscriptions: { forGroup: async () => [sub] },
      refs: { has: async () => true },
      replies: { push: async () => true },
      slackQueue: () => ({
        add: async (_name, _data, opts) => {
          adds.push(opts?.jobId ?? "");
          return undefined;
        },
        addBulk: async () => [],
      }),
      countsDebounceMs: 60_000,
      repliesBatchMs: 60_000,
      // Windows on the clock here (each thread's phase: the tests below).
      windowPhase: () => 0,
      asked: new AskedThisWindow(),
      now: () => now,
    };
    for (const n of [1, 2, 3]) await routeMessageEvent(message(n), deps);
    expect(adds).toEqual(["counts|C1|t1|0", "replies|C1|t1|0"]);
    now = 61_000;
    await routeMessageEvent(message(4), deps);
    expect(adds).toEqual(["counts|C1|t1|0", "replies|C1|t1|0", "counts|C1|t1|1", "replies|C1|t1|1"]);
    // What the benches leave out of work still to do: these, not a card's own post or edit.
    expect(adds.every(isWindowedJobId)).toBe(true);
    expect(isWindowedJobId("card|C1|t1|3")).toBe(false);
  });

  it("notes when each message was routed before asking for the counts edit, even when that edit was asked already", async () => {
    const steps: string[] = [];
    let now = 1_000;
    const deps: MessageRouteDeps = {
      subscriptions: { forGroup: async () => [{ ...sub, delivery: {} }] },
      refs: { has: async () => true },
      replies: { push: async () => true },
      slackQueue: () => ({
        add: async (_name, _data, opts) => {
          steps.push(`add ${opts?.jobId ?? ""}`);
          return undefined;
        },
        addBulk: async () => [],
      }),
      threadActivity: {
        noteMessage: async (threadId, atMs) => {
          steps.push(`note ${threadId} ${atMs}`);
        },
      },
      windowPhase: () => 0,
      asked: new AskedThisWindow(),
      now: () => now,
    };
    await routeMessageEvent(message(1), deps);
    now = 2_000;
    await routeMessageEvent(message(2), deps);
    // The edit at the end of the window trusts only listing reads after the second message.
    expect(steps).toEqual(["note t1 1000", "add counts|C1|t1|0", "note t1 2000"]);
  });

  it("asks again when an add failed (nothing noted)", async () => {
    let calls = 0;
    const deps: MessageRouteDeps = {
      subscriptions: { forGroup: async () => [{ ...sub, delivery: {} }] },
      refs: { has: async () => true },
      replies: { push: async () => true },
      slackQueue: () => ({
        add: async () => {
          calls++;
          if (calls === 1) throw new Error("Redis unavailable");
          return undefined;
        },
        addBulk: async () => [],
      }),
      asked: new AskedThisWindow(),
      now: () => 1_000,
    };
    await expect(routeMessageEvent(message(1), deps)).rejects.toThrow("Redis unavailable");
    await routeMessageEvent(message(2), deps);
    expect(calls).toBe(2);
  });
});

const W = 180_000;
/** The counts jobs asked for, with the default phase of each thread, at `now()`. */
function countsJobs(now: () => number) {
  const adds: { id: string; delay: number }[] = [];
  const deps: MessageRouteDeps = {
    subscriptions: { forGroup: async () => [{ ...sub, delivery: {} }] },
    refs: { has: async () => true },
    replies: { push: async () => true },
    slackQueue: () => ({
      add: async (_name: string, _data: unknown, opts?: AddOptions) => {
        adds.push({ id: opts?.jobId ?? "", delay: opts?.delay ?? 0 });
        return undefined;
      },
      addBulk: async () => [],
    }),
    countsDebounceMs: W,
    now,
  };
  return { adds, deps };
}

describe("a card's counts window has the phase of its thread", () => {
  it("spreads the ends of windows over the window length, not all at one instant", async () => {
    const now = Date.UTC(2026, 10, 27, 10, 0, 0);
    const { adds, deps } = countsJobs(() => now);
    for (let t = 0; t < 1_000; t++) await routeMessageEvent(message(1, `thread-${t}`), deps);
    expect(adds).toHaveLength(1_000);
    // Clock-aligned windows gave every one of them the same delay.
    const tenths = Array.from({ length: 10 }, () => 0);
    for (const a of adds) {
      expect(a.delay).toBeGreaterThan(0);
      expect(a.delay).toBeLessThanOrEqual(W);
      tenths[Math.min(9, Math.floor((a.delay / W) * 10))]! += 1;
    }
    for (const n of tenths) expect(n).toBeGreaterThan(60);
    for (const n of tenths) expect(n).toBeLessThan(140);
  });

  it("keeps one job a window per card, the next window exactly one length later, the same in every process", async () => {
    let now = Date.UTC(2026, 10, 27, 10, 0, 0);
    const { adds, deps } = countsJobs(() => now);
    await routeMessageEvent(message(1, "thread-a"), deps);
    now += 1_000;
    await routeMessageEvent(message(2, "thread-a"), deps);
    const [first, second] = adds;
    expect(second?.id).toBe(first?.id);
    // The first message after the window ends asks for the next window's job.
    now += (second?.delay ?? 0) + 1;
    await routeMessageEvent(message(3, "thread-a"), deps);
    const third = adds[2];
    expect(third?.id).not.toBe(first?.id);
    expect(third?.delay).toBe(W - 1);
    // A phase is a pure function of the thread: another process asks for the same job ids.
    expect(threadWindowPhase("thread-a", W)).toBe(threadWindowPhase("thread-a", W));
    expect(threadWindowPhase("thread-a", W)).not.toBe(threadWindowPhase("thread-b", W));
  });
});

describe("the cards due at one time share one job", () => {
  /** countsJobs' deps with a store of due cards (in memory: the Redis side is test/store/counts-due.test.ts). */
  function withDue(now: () => number, taken = new Set<number>()) {
    const { adds, deps } = countsJobs(now);
    const due = new Map<number, Set<string>>();
    const asked = new AskedThisWindow();
    const store = {
      add: async (channel: string, at: number, card: { threadId: string; window: number }) => {
        if (taken.has(at)) return false;
        const cards = due.get(at) ?? new Set<string>();
        cards.add(`${channel} ${card.threadId} ${card.window}`);
        due.set(at, cards);
        return true;
      },
    };
    return { adds, due, deps: { ...deps, countsDue: store, asked } };
  }

  it("one job a channel and second for every card due then; a card's next messages in its window ask nothing more", async () => {
    const now = Date.UTC(2026, 10, 27, 10, 0, 0);
    // Three threads whose windows end in the same second, one a second later.
    const phases: Record<string, number> = { a: 10_100, b: 10_400, c: 10_900, d: 11_200 };
    const { adds, due, deps } = withDue(() => now);
    const o = { ...deps, windowPhase: (t: string) => phases[t] ?? 0 };
    for (const t of ["a", "b", "c", "d", "a", "b"]) await routeMessageEvent(message(1, t), o);
    expect(adds.map((a) => a.id)).toEqual([
      jobId("counts-due", sub.channelId, now + 11_000),
      jobId("counts-due", sub.channelId, now + 12_000),
    ]);
    // Each job runs at its second, after every card due in it.
    expect(adds.map((a) => a.delay)).toEqual([11_000, 12_000]);
    expect([...(due.get(now + 11_000) ?? [])]).toHaveLength(3);
    expect([...(due.get(now + 12_000) ?? [])]).toHaveLength(1);
  });

  it("a card added after its second's job took the others gets a counts job of its own", async () => {
    const now = Date.UTC(2026, 10, 27, 10, 0, 0);
    const { adds, deps } = withDue(() => now, new Set([now + 11_000]));
    await routeMessageEvent(message(1, "a"), { ...deps, windowPhase: () => 10_100 });
    expect(adds).toEqual([
      { id: jobId("counts", sub.channelId, "a", Math.floor((now - 10_100) / W)), delay: 10_100 },
    ]);
  });
});
