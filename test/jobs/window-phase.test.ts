import { describe, expect, it } from "vitest";
import type { Subscription } from "../../src/domain/subscription.js";
import type { MessageEvent } from "../../src/insight/schemas.js";
import type { AddOptions } from "../../src/jobs/job-types.js";
import {
  routeMessageEvent,
  threadWindowPhase,
  type MessageRouteDeps,
} from "../../src/jobs/route-message-event.js";

const W = 180_000;
const sub: Subscription = {
  channelId: "C1",
  groupId: "g1",
  groupName: "Group",
  communityId: "c1",
  filters: {},
  createdBy: "U1",
  createdAt: "2026-11-01T00:00:00.000Z",
  delivery: {},
};
const message = (threadId: string, n: number): MessageEvent => ({
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

/** The counts jobs asked for, with the default phase of each thread, at `now()`. */
function countsJobs(now: () => number) {
  const adds: { id: string; delay: number }[] = [];
  const deps: MessageRouteDeps = {
    subscriptions: { forGroup: async () => [sub] },
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
    for (let t = 0; t < 1_000; t++) await routeMessageEvent(message(`thread-${t}`, 1), deps);
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
    await routeMessageEvent(message("thread-a", 1), deps);
    now += 1_000;
    await routeMessageEvent(message("thread-a", 2), deps);
    const [first, second] = adds;
    expect(second?.id).toBe(first?.id);
    // The first message after the window ends asks for the next window's job.
    now += (second?.delay ?? 0) + 1;
    await routeMessageEvent(message("thread-a", 3), deps);
    const third = adds[2];
    expect(third?.id).not.toBe(first?.id);
    expect(third?.delay).toBe(W - 1);
    // A phase is a pure function of the thread: another process asks for the same job ids.
    expect(threadWindowPhase("thread-a", W)).toBe(threadWindowPhase("thread-a", W));
    expect(threadWindowPhase("thread-a", W)).not.toBe(threadWindowPhase("thread-b", W));
  });
});
