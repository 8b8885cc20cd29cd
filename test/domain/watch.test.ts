import { describe, expect, it } from "vitest";
import { describeWatch, matchesWatch, sameSpec } from "../../src/domain/watch.js";
import { digest, watch } from "../helpers/personal-builders.js";
import { parseWatchArgs, parseWatchSpec } from "../../src/domain/watch-args.js";
import { decideWatchDeliveries } from "../../src/domain/watch-delivery.js";
import { tokenize } from "../../src/slack/commands/tokenize.js";

const OTHER = digest({
  threadId: "thr_docs",
  title: "Where are the ARM64 images?",
  summary: "A member could not find the ARM64 images.",
  sentiment: "neutral",
  keywords: ["docker", "arm64"],
});

const parse = (text: string) => parseWatchArgs(tokenize(text));

describe("a watch's words and filters", () => {
  it("matches a thread with every word in its title, summary or keywords, and not another", () => {
    const w = watch("U0MAYA", "1");
    expect(matchesWatch(w, digest())).toBe(true);
    expect(matchesWatch(w, OTHER)).toBe(false);
    // Every word: "refund" alone is in the summary of the other thread? No: one word missing is no match.
    expect(matchesWatch(watch("U0MAYA", "1", { words: ["refund", "arm64"] }), digest())).toBe(false);
    // Words are whole words, case and accents ignored; a keyword counts.
    expect(matchesWatch(watch("U0MAYA", "1", { words: ["BILLING", "Upgrade"] }), digest())).toBe(true);
    expect(matchesWatch(watch("U0MAYA", "1", { words: ["refunds"] }), digest())).toBe(false);
  });

  it("applies the filters of subscribe, exclusions winning, and the group when one is named", () => {
    expect(matchesWatch(watch("U", "1", { filters: { sentiments: ["negative"] } }), digest())).toBe(true);
    expect(matchesWatch(watch("U", "1", { filters: { sentiments: ["positive"] } }), digest())).toBe(false);
    expect(matchesWatch(watch("U", "1", { filters: { excludeKeywords: ["billing"] } }), digest())).toBe(
      false,
    );
    expect(
      matchesWatch(watch("U", "1", { words: [], filters: { keywords: ["docker", "chargeback"] } }), OTHER),
    ).toBe(true);
    expect(matchesWatch(watch("U", "1", { group: { id: "group-other", name: "Other" } }), digest())).toBe(
      false,
    );
    expect(matchesWatch(watch("U", "1", { filters: { unanswered: true } }), digest())).toBe(true);
  });

  it("says what it watches in one line", () => {
    const p = parse("refund failed --group Lumen DB Support --sentiment negative --quiet 22:00-07:00");
    expect(p.kind).toBe("add");
    if (p.kind !== "add") return;
    expect(
      describeWatch({
        words: p.words,
        group: { id: "g", name: "Lumen DB Support" },
        filters: p.filters,
        quiet: p.quiet,
      }),
    ).toBe("“refund failed” in Lumen DB Support · sentiment negative · quiet 22:00–07:00");
    expect(
      describeWatch({ words: [], group: { id: "g", name: "Support" }, filters: { unanswered: true } }),
    ).toBe("threads in Support · unanswered questions only");
    expect(sameSpec(watch("U", "1", { words: ["Refund", "failed"] }), watch("U", "2"))).toBe(true);
  });
});

describe("watch arguments", () => {
  it("reads words, the group, filters, --daily and --quiet (quoted phrases and --keywords any-of)", () => {
    expect(
      parse('refund "dark mode" --keywords chargeback,"late fee" --exclude-keywords test --daily 9am'),
    ).toEqual({
      kind: "add",
      words: ["refund", "dark mode"],
      groupRef: undefined,
      filters: { keywords: ["chargeback", "late fee"], excludeKeywords: ["test"] },
      daily: 540,
      quiet: undefined,
    });
    expect(parse("refund --group=Lumen DB Support --unanswered")).toMatchObject({
      kind: "add",
      groupRef: "Lumen DB Support",
      filters: { unanswered: true },
    });
    expect(parse("list")).toEqual({ kind: "list" });
    expect(parse("off 2")).toEqual({ kind: "off", which: 2 });
    expect(parse("off all")).toEqual({ kind: "off", which: "all" });
    // In the Edit modal, "list" is a word like any other.
    expect(parseWatchSpec(["list"])).toMatchObject({ kind: "add", words: ["list"] });
  });

  it("answers bad input with one sentence and what was understood", () => {
    expect(parse("")).toEqual({
      kind: "error",
      error: "Say what to watch for: some words, a group, or a filter.",
      understood: "",
    });
    expect(parse("refund --daily 23:00 --quiet 22:00-07:00")).toEqual({
      kind: "error",
      error: "--daily 23:00 falls inside your quiet hours 22:00–07:00: pick a time outside them.",
      understood: "words “refund” · daily at 23:00 · quiet 22:00–07:00",
    });
    expect(parse("refund --quiet 22")).toEqual({
      kind: "error",
      error: '--quiet takes two times, from and to, like --quiet 22:00-07:00 (I read "22").',
      understood: "words “refund”",
    });
    expect(parse("refund --sentiment negative --exclude-sentiment negative")).toEqual({
      kind: "error",
      error: "negative cannot be both wanted and excluded: remove it from one of the two.",
      understood: "words “refund” · sentiment negative · never negative",
    });
    expect(parse("refund --bogus")).toEqual({
      kind: "error",
      error:
        'Unknown option "--bogus": a watch takes --group, --daily, --quiet and --sentiment, --exclude-sentiment, --keywords, --exclude-keywords, --questions, --unanswered, --min-messages, --min-participants.',
      understood: "words “refund”",
    });
    expect(parse("refund --min-messages many")).toMatchObject({
      kind: "error",
      error: '--min-messages: A whole number from 1 to 10,000, like 5 (you typed "many").',
    });
    expect(parse("off x")).toMatchObject({ kind: "error" });
  });
});

describe("who gets what when a thread changes (pure)", () => {
  const now = Date.parse("2026-03-13T22:30:00Z"); // 23:30 Berlin, 18:30 New York
  const zones: Record<string, string> = { U0MAYA: "Europe/Berlin", U0SAM: "America/New_York" };
  const timeZoneOf = (u: string) => zones[u] ?? "UTC";

  it("a DM to the watcher of a matching thread; nothing for another thread; another person's watch untouched", () => {
    const watches = [watch("U0MAYA", "1"), watch("U0SAM", "1", { words: ["arm64"] })];
    expect(decideWatchDeliveries({ thread: digest(), watches, hasDm: new Set(), timeZoneOf, now })).toEqual([
      { kind: "dm", userId: "U0MAYA", watchId: "1" },
    ]);
    expect(decideWatchDeliveries({ thread: OTHER, watches, hasDm: new Set(), timeZoneOf, now })).toEqual([
      { kind: "dm", userId: "U0SAM", watchId: "1" },
    ]);
    expect(
      decideWatchDeliveries({
        thread: digest({ title: "Dashboards", summary: "", keywords: [] }),
        watches,
        hasDm: new Set(),
        timeZoneOf,
        now,
      }),
    ).toEqual([]);
  });

  it("one DM per person however many of their watches match; an edit once they have one, saying when it left", () => {
    const watches = [watch("U0MAYA", "1"), watch("U0MAYA", "2", { words: ["refund"] })];
    expect(decideWatchDeliveries({ thread: digest(), watches, hasDm: new Set(), timeZoneOf, now })).toEqual([
      { kind: "dm", userId: "U0MAYA", watchId: "1" },
    ]);
    expect(
      decideWatchDeliveries({
        thread: digest({ action: "updated" }),
        watches,
        hasDm: new Set(["U0MAYA"]),
        timeZoneOf,
        now,
      }),
    ).toEqual([{ kind: "edit", userId: "U0MAYA", stillMatches: true }]);
    const answered = digest({
      action: "updated",
      title: "Billing question",
      summary: "Solved.",
      keywords: [],
    });
    expect(
      decideWatchDeliveries({ thread: answered, watches, hasDm: new Set(["U0MAYA"]), timeZoneOf, now }),
    ).toEqual([{ kind: "edit", userId: "U0MAYA", stillMatches: false }]);
  });

  it("quiet hours across a time-zone boundary: held for Berlin until 07:00 there, sent now to New York", () => {
    const quiet = { from: 22 * 60, to: 7 * 60 };
    const watches = [watch("U0MAYA", "1", { quiet }), watch("U0SAM", "4", { quiet })];
    expect(decideWatchDeliveries({ thread: digest(), watches, hasDm: new Set(), timeZoneOf, now })).toEqual([
      { kind: "held", userId: "U0MAYA", watchId: "1", dueAtMs: Date.parse("2026-03-14T06:00:00Z") },
      { kind: "dm", userId: "U0SAM", watchId: "4" },
    ]);
    // A watch of the same person without quiet hours sends it now.
    const both = [...watches, watch("U0MAYA", "2", { words: ["refund"] })];
    expect(
      decideWatchDeliveries({ thread: digest(), watches: both, hasDm: new Set(), timeZoneOf, now })[0],
    ).toEqual({
      kind: "dm",
      userId: "U0MAYA",
      watchId: "2",
    });
  });

  it("the daily gathering: a line of the next daily DM, at that time in each person's zone", () => {
    const watches = [watch("U0MAYA", "1", { daily: 9 * 60 }), watch("U0SAM", "1", { daily: 9 * 60 })];
    const at = decideWatchDeliveries({ thread: digest(), watches, hasDm: new Set(), timeZoneOf, now });
    expect(at).toEqual([
      { kind: "daily", userId: "U0MAYA", watchId: "1", dueAtMs: Date.parse("2026-03-14T08:00:00Z") },
      { kind: "daily", userId: "U0SAM", watchId: "1", dueAtMs: Date.parse("2026-03-14T13:00:00Z") },
    ]);
    // Two threads the same evening go to the same DM (the same due time, so one gathering job).
    const second = decideWatchDeliveries({
      thread: digest({ threadId: "thr_2" }),
      watches,
      hasDm: new Set(),
      timeZoneOf,
      now: now + 3_600_000,
    });
    expect(second.map((d) => (d.kind === "daily" ? d.dueAtMs : 0))).toEqual(
      at.map((d) => (d.kind === "daily" ? d.dueAtMs : 0)),
    );
  });
});
