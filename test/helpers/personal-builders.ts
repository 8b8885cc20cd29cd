/* Fixed-id builders of the personal tests: a thread digest and a watch. */
import type { ThreadDigest } from "../../src/domain/thread-digest.js";
import type { Watch, WatchSpec } from "../../src/domain/watch.js";

export function digest(over: Partial<ThreadDigest> = {}): ThreadDigest {
  return {
    threadId: "thr_refund",
    groupId: "group-support-01",
    groupName: "Lumen DB Support",
    communityId: "community-1",
    title: "Refund failed after the upgrade",
    summary: "Two members say their refund request failed twice since 0.15.",
    sentiment: "negative",
    keywords: ["billing", "upgrade"],
    messageCount: 6,
    participantCount: 3,
    isQuestionLed: true,
    questionResponseStatus: "pending",
    firstMessageDate: "2026-03-13T10:00:00.000Z",
    lastMessageDate: "2026-03-13T12:00:00.000Z",
    enrichedAt: "2026-03-13T12:05:00.000Z",
    action: "created",
    ...over,
  };
}

export function watch(userId: string, id: string, spec: Partial<WatchSpec> = {}): Watch {
  return {
    id,
    userId,
    createdAt: "2026-03-01T00:00:00.000Z",
    words: ["refund", "failed"],
    filters: {},
    ...spec,
  };
}
