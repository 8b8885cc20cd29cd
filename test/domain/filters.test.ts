import { describe, expect, it } from "vitest";
import {
  describeFilters,
  matchesFilters,
  parseFilterArgs,
  type SubscriptionFilters,
} from "../../src/domain/filters.js";
import { buildThreadDigest } from "../../src/domain/thread-digest.js";
import { createdEvent, digest, listingItem, updatedEvent } from "../fixtures/threads/build.js";

const split = (s: string) => s.split(/\s+/).filter(Boolean);

describe("parseFilterArgs", () => {
  it.each<[string, SubscriptionFilters]>([
    ["", {}],
    ["--sentiment negative,mixed", { sentiments: ["negative", "mixed"] }],
    ["--sentiment negative, mixed", { sentiments: ["negative", "mixed"] }],
    ["--sentiment=Very_Negative,frustrated", { sentiments: ["negative"] }],
    ["--sentiment neg --sentiment pos", { sentiments: ["negative", "positive"] }],
    ["--questions", { questions: true }],
    ["--unanswered", { unanswered: true }],
    ["--min-messages 5", { minMessages: 5 }],
    ["--min-messages=12", { minMessages: 12 }],
    ["--keywords refund,dark mode, EU", { keywords: ["refund", "dark mode", "EU"] }],
    ['--keywords "dark mode",refund,Refund', { keywords: ["dark mode", "refund"] }],
    [
      "--sentiment negative --questions --unanswered --min-messages 3 --keywords refund",
      { sentiments: ["negative"], questions: true, unanswered: true, minMessages: 3, keywords: ["refund"] },
    ],
    // Slack on macOS/iOS turns "--" into a dash:
    ["—sentiment negative –questions", { sentiments: ["negative"], questions: true }],
    ["--SENTIMENT Negative", { sentiments: ["negative"] }],
  ])("%j", (input, filters) => {
    expect(parseFilterArgs(split(input))).toEqual({ ok: true, filters });
  });

  it.each([
    ["--min-messages", "--min-messages needs a whole number, like --min-messages 5."],
    ["--min-messages five", "--min-messages needs a whole number, like --min-messages 5."],
    ["--min-messages 2.5", "--min-messages needs a whole number, like --min-messages 5."],
    ["--min-messages 0", "--min-messages needs a whole number, like --min-messages 5."],
    ["--min-messages --questions", "--min-messages needs a whole number, like --min-messages 5."],
    [
      "--sentiment",
      "--sentiment needs one or more of positive, negative, neutral, mixed, like --sentiment negative,mixed.",
    ],
    [
      "--sentiment angryish",
      '"angryish" is not a sentiment I know: use positive, negative, neutral or mixed.',
    ],
    ["--keywords", "--keywords needs one or more words, like --keywords refund,dark mode."],
    ["--keywords ,,", "--keywords needs one or more words, like --keywords refund,dark mode."],
    ["negative", 'Unexpected "negative": filters start with --, like --sentiment negative.'],
    [
      "--colour red",
      'Unknown filter "--colour": use --sentiment, --questions, --unanswered, --min-messages, --keywords.',
    ],
    ["--questions=yes", "--questions takes no value."],
    ["--questions extra", 'Unexpected "extra": filters start with --, like --sentiment negative.'],
  ])("%j -> error", (input, error) => {
    expect(parseFilterArgs(split(input))).toEqual({ ok: false, error });
  });

  it("bounds keyword count and length", () => {
    const many = Array.from({ length: 21 }, (_, i) => `k${i}`).join(",");
    expect(parseFilterArgs(["--keywords", many])).toEqual({
      ok: false,
      error: "Up to 20 keywords can be given.",
    });
    expect(parseFilterArgs(["--keywords", "x".repeat(101)])).toEqual({
      ok: false,
      error: "Keywords can be at most 100 characters long.",
    });
  });
});

describe("matchesFilters", () => {
  const base = digest({
    title: "Refund failed after update",
    summary: "Users on Android see error 402 when topping up by card.",
    keywords: ["card top-up", "Dark Mode"],
    sentiment: "very_negative",
    messageCount: 8,
    isQuestionLed: true,
    questionResponseStatus: "not_answered",
  });

  it.each<[string, SubscriptionFilters, Partial<typeof base>, boolean]>([
    ["no filters", {}, {}, true],
    ["sentiment by tone", { sentiments: ["negative"] }, {}, true],
    ["sentiment other tone", { sentiments: ["positive", "neutral"] }, {}, false],
    ["sentiment via variant in filter", { sentiments: ["neg"] }, {}, true],
    ["mixed", { sentiments: ["negative", "mixed"] }, { sentiment: "Mixed" }, true],
    ["sentiment not known yet", { sentiments: ["negative"] }, { sentiment: undefined }, false],
    ["sentiment unrecognised text", { sentiments: ["negative"] }, { sentiment: "curious" }, false],
    ["questions: question-led", { questions: true }, {}, true],
    ["questions: not question-led", { questions: true }, { isQuestionLed: false }, false],
    ["questions: not known", { questions: true }, { isQuestionLed: undefined }, false],
    ["unanswered: not answered", { unanswered: true }, {}, true],
    ["unanswered: partially", { unanswered: true }, { questionResponseStatus: "partially_answered" }, true],
    ["unanswered: status unknown", { unanswered: true }, { questionResponseStatus: undefined }, true],
    ["unanswered: answered", { unanswered: true }, { questionResponseStatus: "Answered" }, false],
    ["unanswered: not a question", { unanswered: true }, { isQuestionLed: false }, false],
    ["min messages: equal", { minMessages: 8 }, {}, true],
    ["min messages: fewer", { minMessages: 9 }, {}, false],
    ["min messages: unknown count", { minMessages: 1 }, { messageCount: undefined }, false],
    ["keyword in keywords, case-insensitive", { keywords: ["dark mode"] }, {}, true],
    ["keyword is a word of a keyword", { keywords: ["TOP-UP"] }, {}, true],
    ["keyword in title", { keywords: ["refund"] }, {}, true],
    ["keyword in summary with punctuation", { keywords: ["android"] }, {}, true],
    ["any keyword is enough", { keywords: ["ios", "402"] }, {}, true],
    ["whole words only", { keywords: ["fund"] }, {}, false],
    ["no keyword matches", { keywords: ["staking"] }, {}, false],
    ["symbol-only keyword as substring", { keywords: ["🔥"] }, { title: "Launch day 🔥🔥" }, true],
    [
      "all criteria must hold",
      { sentiments: ["negative"], unanswered: true, minMessages: 5, keywords: ["refund"] },
      {},
      true,
    ],
    [
      "one failing criterion fails",
      { sentiments: ["negative"], unanswered: true, minMessages: 50, keywords: ["refund"] },
      {},
      false,
    ],
  ])("%s", (_name, filters, overrides, expected) => {
    expect(matchesFilters({ ...base, ...overrides }, filters)).toBe(expected);
  });

  it("decides on realistic digests", () => {
    const negativeQuestion = buildThreadDigest(updatedEvent(), listingItem("thr_8c1f2a9e"));
    const early = buildThreadDigest(createdEvent(), undefined);
    const filters: SubscriptionFilters = { sentiments: ["negative"], keywords: ["refund"] };
    expect(matchesFilters(negativeQuestion, filters)).toBe(true);
    // Same thread before the listing brought its sentiment: not yet.
    expect(matchesFilters(early, filters)).toBe(false);
    expect(matchesFilters(negativeQuestion, { unanswered: true })).toBe(false);
  });
});

describe("describeFilters", () => {
  it.each<[SubscriptionFilters, string]>([
    [{}, "all threads"],
    [
      { sentiments: ["negative", "mixed"], questions: true, minMessages: 5 },
      "sentiment negative or mixed · questions only · ≥ 5 messages",
    ],
    [{ sentiments: ["positive", "neutral", "mixed"] }, "sentiment positive, neutral or mixed"],
    [{ unanswered: true, questions: true }, "unanswered questions only"],
    [{ minMessages: 1 }, "≥ 1 message"],
    [{ keywords: ["refund"] }, "keyword refund"],
    [{ keywords: ["refund", "dark mode"] }, "keywords refund or dark mode"],
  ])("%j -> %s", (filters, text) => {
    expect(describeFilters(filters)).toBe(text);
  });

  it("describes what it parsed", () => {
    const parsed = parseFilterArgs(split("--sentiment frustrated --unanswered --min-messages 3"));
    expect(parsed.ok && describeFilters(parsed.filters)).toBe(
      "sentiment negative · unanswered questions only · ≥ 3 messages",
    );
  });
});
