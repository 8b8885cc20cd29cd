import { afterEach, describe, expect, it, vi } from "vitest";
import { groupBatch } from "../../../src/domain/digest-batch.js";
import { cardFactsOf, describeChange } from "../../../src/domain/thread-change.js";
import { buildThreadDigest } from "../../../src/domain/thread-digest.js";
import { renderThreadDigest } from "../../../src/slack/render/thread-digest.js";
import { updatedEvent, listingItem } from "../../fixtures/threads/build.js";
import { allTexts } from "./walk.js";

// A process that formats one number or date through Intl keeps ICU's data for its whole life
// (5-7 MB of RSS, measured; collation for localeCompare 3 MB more): the realtime path (cards,
// full and compact, their edits and batches) must not need it.
describe("the card path and Intl", () => {
  afterEach(() => vi.restoreAllMocks());

  it("renders first posts, edits and batches, with counts in the thousands, without ICU", () => {
    const used: string[] = [];
    const watch = <T extends object>(owner: T, name: keyof T & string) =>
      vi.spyOn(owner, name as never).mockImplementation((() => {
        used.push(name);
        throw new Error(`${name} used`);
      }) as never);
    watch(Intl, "NumberFormat");
    watch(Intl, "DateTimeFormat");
    watch(Intl, "Collator");
    watch(Number.prototype, "toLocaleString");
    watch(Date.prototype, "toLocaleString");
    watch(Date.prototype, "toLocaleDateString");
    watch(String.prototype, "localeCompare");

    const before = buildThreadDigest(updatedEvent(), listingItem("thr_8c1f2a9e"));
    const d = { ...before, messageCount: 12_045 };
    const change = describeChange(cardFactsOf(before), cardFactsOf(d));
    const full = allTexts(
      renderThreadDigest(d, { now: new Date("2025-03-06T12:00:00.000Z"), change }).blocks,
    );
    const compact = allTexts(renderThreadDigest(d, { format: "compact" }).blocks).join("\n");
    const entry = (threadId: string) => ({
      digest: { ...d, threadId },
      version: 1,
      isNew: true,
      firstSeenMs: 0,
    });
    const batch = groupBatch([entry("thr_b"), entry("thr_a")]);

    expect(used).toEqual([]);
    expect(full.join("\n")).toContain("*Messages:* 12,045");
    expect(before.messageCount).toBe(52);
    expect(change).toContain("+11,993 messages");
    expect(compact).toContain("12,045 messages");
    const order = [...batch.new, ...batch.changed, ...batch.handled].map((e) => e.digest.threadId);
    expect(order).toEqual(["thr_a", "thr_b"]);
  });
});
