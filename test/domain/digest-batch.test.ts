import { describe, expect, it } from "vitest";
import {
  digestCron,
  entryVersion,
  groupBatch,
  mergePending,
  periodHours,
  periodStartOf,
  sectionOf,
  type PendingEntry,
} from "../../src/domain/digest-batch.js";
import type { ThreadDigest } from "../../src/domain/thread-digest.js";

const digest = (o: Partial<ThreadDigest> = {}): ThreadDigest => ({
  threadId: "t1",
  groupId: "g1",
  groupName: "Support",
  communityId: "c1",
  title: "A thread",
  summary: "s",
  sentiment: "neutral",
  keywords: [],
  messageCount: 3,
  participantCount: 2,
  isQuestionLed: false,
  questionResponseStatus: undefined,
  firstMessageDate: undefined,
  lastMessageDate: undefined,
  enrichedAt: "2026-11-20T10:00:00.000Z",
  action: "created",
  ...o,
});
const entry = (at: number, o: Partial<ThreadDigest> = {}, isNew = true, firstSeenMs = at): PendingEntry => {
  const d = digest(o);
  return { digest: d, version: entryVersion(at, Boolean(d.sentiment)), isNew, firstSeenMs };
};

describe("mergePending: latest state wins", () => {
  it("a thread changed three times in a period is one entry in its latest state, still new", () => {
    let e = mergePending(undefined, entry(1_000, { title: "v1" }, true, 1_000));
    e = mergePending(e, entry(3_000, { title: "v3", action: "updated" }, false, 3_000));
    e = mergePending(e, entry(2_000, { title: "v2 (late)", action: "updated" }, false, 2_000));
    expect(e?.digest.title).toBe("v3");
    expect(e?.isNew).toBe(true);
    expect(e?.firstSeenMs).toBe(1_000);
  });
  it("a state an earlier digest showed is not pending again; a newer one comes back as changed", () => {
    const shown = entry(2_000).version;
    expect(mergePending(undefined, entry(2_000), shown)).toBeUndefined();
    expect(mergePending(undefined, entry(1_500), shown)).toBeUndefined();
    expect(mergePending(undefined, entry(3_000, {}, true), shown)).toMatchObject({ isNew: false });
  });
  it("the same enrichment with its sentiment beats the one without; the reverse changes nothing", () => {
    const without = entry(1_000, { sentiment: undefined });
    const withS = entry(1_000, { sentiment: "negative" });
    expect(mergePending(without, withS)?.digest.sentiment).toBe("negative");
    expect(mergePending(withS, without)?.digest.sentiment).toBe("negative");
  });
});

describe("sections", () => {
  it("questions the channel saw open and that got answered are handled; others new or changed", () => {
    // Created and answered in the same period: the channel never saw it open, so it stays new.
    expect(sectionOf(entry(1, { isQuestionLed: true, questionResponseStatus: "answered" }))).toBe("new");
    expect(sectionOf(entry(1, { isQuestionLed: true, questionResponseStatus: "answered" }, false))).toBe(
      "handled",
    );
    expect(sectionOf(entry(1, { isQuestionLed: true, questionResponseStatus: "unanswered" }))).toBe("new");
    expect(sectionOf(entry(1, {}, false))).toBe("changed");
    const b = groupBatch([
      entry(1, { threadId: "a" }),
      entry(5, { threadId: "b" }),
      entry(3, { threadId: "c" }, false),
      entry(2, { threadId: "d", isQuestionLed: true, questionResponseStatus: "Resolved" }, false),
    ]);
    expect(b.new.map((e) => e.digest.threadId)).toEqual(["b", "a"]);
    expect(b.changed.map((e) => e.digest.threadId)).toEqual(["c"]);
    expect(b.handled.map((e) => e.digest.threadId)).toEqual(["d"]);
    expect(b.total).toBe(4);
  });
});

describe("periods aligned on 09:00 in the channel's zone", () => {
  it("every period includes 09:00 and splits the day evenly", () => {
    expect(periodHours("24h")).toEqual([9]);
    expect(periodHours("12h")).toEqual([9, 21]);
    expect(periodHours("8h")).toEqual([1, 9, 17]);
    expect(periodHours("4h")).toEqual([1, 5, 9, 13, 17, 21]);
    expect(periodHours("2h")).toHaveLength(12);
    expect(digestCron("1h")).toBe("0 * * * *");
    expect(digestCron("24h")).toBe("0 9 * * *");
    expect(digestCron("8h")).toBe("0 1,9,17 * * *");
  });
});

describe('where a period began (the digest\'s "since")', () => {
  const at = (iso: string) => Date.parse(iso);
  it("is the tick before, in the channel's zone", () => {
    // 09:00 in Berlin (CET) is 08:00 UTC.
    expect(periodStartOf("24h", at("2026-03-13T08:00:00Z"), "Europe/Berlin")).toBe(
      at("2026-03-12T08:00:00Z"),
    );
    expect(periodStartOf("4h", at("2026-03-13T08:00:00Z"), "Europe/Berlin")).toBe(at("2026-03-13T04:00:00Z"));
    expect(periodStartOf("1h", at("2026-03-13T08:00:00Z"), "UTC")).toBe(at("2026-03-13T07:00:00Z"));
  });

  it("a daily period across the spring DST change lasts 23 hours: still since 09:00", () => {
    expect(periodStartOf("24h", at("2026-03-30T07:00:00Z"), "Europe/Berlin")).toBe(
      at("2026-03-29T07:00:00Z"),
    );
    expect(periodStartOf("24h", at("2026-03-29T07:00:00Z"), "Europe/Berlin")).toBe(
      at("2026-03-28T08:00:00Z"),
    );
  });

  it("a tick a little late does not find itself", () => {
    expect(periodStartOf("24h", at("2026-03-13T08:00:00.750Z"), "Europe/Berlin")).toBe(
      at("2026-03-12T08:00:00Z"),
    );
  });
});
