import { afterEach, describe, expect, it, vi } from "vitest";
import { buildThreadDigest } from "../../../src/domain/thread-digest.js";
import { renderThreadDigest } from "../../../src/slack/render/thread-digest.js";
import { updatedEvent, listingItem } from "../../fixtures/threads/build.js";
import { allTexts } from "./walk.js";

// A process that formats one number or date through Intl keeps ICU's data for its whole life
// (~7 MB of RSS, measured): the realtime path (cards, full and compact) must not need it.
describe("the card's renderer and Intl", () => {
  afterEach(() => vi.restoreAllMocks());

  it("renders full and compact cards, with counts in the thousands, without Intl's formatting", () => {
    const used: string[] = [];
    const watch = <T extends object>(owner: T, name: keyof T & string) =>
      vi.spyOn(owner, name as never).mockImplementation((() => {
        used.push(name);
        throw new Error(`${name} used`);
      }) as never);
    watch(Intl, "NumberFormat");
    watch(Intl, "DateTimeFormat");
    watch(Number.prototype, "toLocaleString");
    watch(Date.prototype, "toLocaleString");
    watch(Date.prototype, "toLocaleDateString");

    const d = { ...buildThreadDigest(updatedEvent(), listingItem("thr_8c1f2a9e")), messageCount: 12_045 };
    const full = allTexts(renderThreadDigest(d, { now: new Date("2025-03-06T12:00:00.000Z") }).blocks).join(
      "\n",
    );
    const compact = allTexts(renderThreadDigest(d, { format: "compact" }).blocks).join("\n");

    expect(used).toEqual([]);
    expect(full).toContain("*Messages:* 12,045");
    expect(compact).toContain("12,045 messages");
  });
});
