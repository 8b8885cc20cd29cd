import { describe, expect, it } from "vitest";
import type { SubscriptionFilters } from "../../src/domain/filters.js";
import {
  applyChange,
  describeDelivery,
  describeSubscription,
  isEmptyChange,
  parseEvery,
  parseSubscriptionOptions,
} from "../../src/domain/subscription-options.js";
import { digestCron } from "../../src/domain/digest-batch.js";
import { DEFAULT_DELIVERY, DIGEST_PERIODS } from "../../src/domain/subscription.js";

const split = (s: string) => s.split(/\s+/).filter(Boolean);
const parse = (s: string) => {
  const r = parseSubscriptionOptions(split(s));
  if (!r.ok) throw new Error(r.error);
  return r.change;
};

describe("parseSubscriptionOptions: filters", () => {
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
    expect(parseSubscriptionOptions(split(input))).toEqual({
      ok: true,
      change: { filters, clearFilters: false, delivery: {} },
    });
  });

  it.each([
    // The settings form's sentence, after the option's name (rule 13: the same words).
    ["--min-messages", '--min-messages: A whole number from 1 to 10,000, like 5 (you typed "").'],
    ["--min-messages five", '--min-messages: A whole number from 1 to 10,000, like 5 (you typed "five").'],
    ["--min-messages 2.5", '--min-messages: A whole number from 1 to 10,000, like 5 (you typed "2.5").'],
    ["--min-messages 0", '--min-messages: A whole number from 1 to 10,000, like 5 (you typed "0").'],
    ["--min-messages --questions", '--min-messages: A whole number from 1 to 10,000, like 5 (you typed "").'],
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
    ["negative", 'Unexpected "negative": options start with --, like --sentiment negative.'],
    [
      "--colour red",
      'Unknown option "--colour": use --sentiment, --exclude-sentiment, --keywords, --exclude-keywords, --questions, --unanswered, --min-messages, --min-participants, --mode, --every, --format, --replies, --all.',
    ],
    ["--questions=maybe", "--questions takes no value, or on/off, like --questions or --questions off."],
    ["--questions extra", 'Unexpected "extra": options start with --, like --sentiment negative.'],
  ])("%j -> error", (input, error) => {
    expect(parseSubscriptionOptions(split(input))).toMatchObject({ ok: false, error });
  });

  it("bounds keyword count and length", () => {
    const many = Array.from({ length: 21 }, (_, i) => `k${i}`).join(",");
    expect(parseSubscriptionOptions(["--keywords", many])).toMatchObject({
      ok: false,
      error: "Up to 20 keywords, separated by commas.",
    });
    expect(parseSubscriptionOptions(["--keywords", "x".repeat(101)])).toMatchObject({
      ok: false,
      error: "Each keyword can be at most 100 characters long.",
    });
  });

  it("refuses one sentiment both wanted and excluded, in the settings form's words", () => {
    expect(parseSubscriptionOptions(split("--sentiment negative --exclude-sentiment negative"))).toEqual({
      ok: false,
      error: "negative cannot be both wanted and excluded: remove it from one of the two.",
      understood: "sentiment negative · never negative",
    });
    expect(
      parseSubscriptionOptions(split("--sentiment negative,mixed --exclude-sentiment mixed,negative")),
    ).toMatchObject({
      error: "negative, mixed cannot be both wanted and excluded: remove them from one of the two.",
    });
  });
});

describe("parseSubscriptionOptions: exclusions, thresholds, delivery", () => {
  it("reads every option of DESIGN.md", () => {
    expect(
      parse(
        "--sentiment negative --exclude-sentiment positive,neutral --keywords refund --exclude-keywords beta,test " +
          "--questions --unanswered --min-messages 3 --min-participants 2 --mode digest --every 4h --format compact --replies on",
      ),
    ).toEqual({
      filters: {
        sentiments: ["negative"],
        excludeSentiments: ["positive", "neutral"],
        keywords: ["refund"],
        excludeKeywords: ["beta", "test"],
        questions: true,
        unanswered: true,
        minMessages: 3,
        minParticipants: 2,
      },
      clearFilters: false,
      delivery: { mode: "digest", every: "4h", format: "compact", replies: true },
    });
  });

  it("--every alone means digest mode; with another mode it is refused", () => {
    expect(parse("--every 2h").delivery).toEqual({ mode: "digest", every: "2h" });
    expect(parse("--every daily").delivery).toEqual({ mode: "digest", every: "24h" });
    expect(parseSubscriptionOptions(split("--mode realtime --every 2h"))).toMatchObject({
      ok: false,
      error: "--every sets the period of digest mode; it does nothing with --mode realtime.",
      understood: "mode realtime · every 2h",
    });
  });

  it("says what it understood before the word it could not read", () => {
    expect(parseSubscriptionOptions(split("--sentiment negative --mode weekly"))).toEqual({
      ok: false,
      error: "--mode is one of realtime, digest, summary, like --mode digest.",
      understood: "sentiment negative",
    });
    expect(parseSubscriptionOptions(split("--every 3h"))).toMatchObject({
      error: "--every is one of 1h, 2h, 4h, 8h, 12h, 24h, like --every 4h.",
    });
    expect(parseSubscriptionOptions(split("--format tiny"))).toMatchObject({
      error: "--format is full or compact, like --format compact.",
    });
    expect(parseSubscriptionOptions(split("--replies maybe"))).toMatchObject({
      error: "--replies is on or off, like --replies on.",
    });
    expect(parseSubscriptionOptions(split("--min-participants 0"))).toMatchObject({
      error: '--min-participants: A whole number from 1 to 10,000, like 5 (you typed "0").',
    });
  });

  it("refuses delivery options where only filters apply (threads)", () => {
    expect(parseSubscriptionOptions(split("--mode digest"), { filtersOnly: true })).toMatchObject({
      ok: false,
    });
    expect(parseSubscriptionOptions(split("--sentiment mixed"), { filtersOnly: true })).toMatchObject({
      ok: true,
    });
  });

  it.each([
    ["4h", "4h"],
    ["4 hours", "4h"],
    ["12", "12h"],
    ["hourly", "1h"],
    ["3h", undefined],
    ["", undefined],
  ])("parseEvery(%j) = %j", (input, out) => {
    expect(parseEvery(input)).toBe(out);
  });
});

describe("applyChange: only what is named changes", () => {
  const current = {
    filters: { sentiments: ["negative", "mixed"], unanswered: true } as SubscriptionFilters,
    delivery: { mode: "digest" as const, every: "4h" as const },
  };

  it("no options keep filters and delivery", () => {
    const c = parse("");
    expect(isEmptyChange(c)).toBe(true);
    expect(applyChange(current, c)).toEqual(current);
  });

  it("a named filter replaces that filter only; delivery stays", () => {
    expect(applyChange(current, parse("--keywords refund --sentiment negative"))).toEqual({
      filters: { sentiments: ["negative"], unanswered: true, keywords: ["refund"] },
      delivery: { mode: "digest", every: "4h" },
    });
  });

  it("--all clears the filters and keeps the delivery; other options after it apply", () => {
    expect(applyChange(current, parse("--all"))).toEqual({ filters: {}, delivery: current.delivery });
    expect(applyChange(current, parse("--all --questions")).filters).toEqual({ questions: true });
  });

  it("--questions off also drops unanswered", () => {
    expect(applyChange(current, parse("--questions off")).filters).toEqual({
      sentiments: ["negative", "mixed"],
    });
  });

  it("a delivery option changes only that setting", () => {
    expect(applyChange(current, parse("--format compact")).delivery).toEqual({
      mode: "digest",
      every: "4h",
      format: "compact",
    });
  });
});

describe("describing what is in force", () => {
  it.each([
    [{}, "a card per thread"],
    [{ mode: "digest" }, "daily digest at 09:00"],
    [{ mode: "digest", every: "1h" }, "digest every hour, on the hour"],
    // Card settings are not said for a mode that posts no cards.
    [{ mode: "digest", every: "4h", format: "compact" }, "digest every 4 hours, at 01:00, 05:00, …, 21:00"],
    [{ format: "compact" }, "a card per thread, compact cards"],
    [{ replies: true }, "a card per thread, new messages as replies under the card"],
    [{ mode: "summary", format: "compact" }, "weekly summary only"],
  ] as const)("%j -> %s", (d, text) => {
    expect(describeDelivery({ ...DEFAULT_DELIVERY, ...d })).toBe(text);
  });

  it("filters then delivery", () => {
    expect(
      describeSubscription({ filters: { sentiments: ["negative", "mixed"] }, delivery: { mode: "digest" } }),
    ).toBe("sentiment negative or mixed · daily digest at 09:00");
  });

  it.each([
    ["24h", "daily digest at 09:00 (Europe/Berlin)"],
    ["12h", "digest every 12 hours, at 09:00 and 21:00 (Europe/Berlin)"],
    ["8h", "digest every 8 hours, at 01:00, 09:00 and 17:00 (Europe/Berlin)"],
    ["4h", "digest every 4 hours, at 01:00, 05:00, …, 21:00 (Europe/Berlin)"],
    ["2h", "digest every 2 hours, at 01:00, 03:00, …, 23:00 (Europe/Berlin)"],
    ["1h", "digest every hour, on the hour (Europe/Berlin)"],
  ] as const)("every %s, in the channel's zone: %s", (every, text) => {
    expect(describeDelivery({ ...DEFAULT_DELIVERY, mode: "digest", every }, "Europe/Berlin")).toBe(text);
  });

  it("the times said are the hours the period's cron fires at", () => {
    for (const every of DIGEST_PERIODS) {
      const said = [
        ...describeDelivery({ ...DEFAULT_DELIVERY, mode: "digest", every }).matchAll(/(\d\d):00/g),
      ].map((m) => Number(m[1]));
      const fires = digestCron(every).split(" ")[1] ?? "";
      const hours = fires === "*" ? [] : fires.split(",").map(Number);
      for (const h of said) expect(hours).toContain(h);
      if (hours.length > 0) {
        expect(said[0]).toBe(hours[0]);
        expect(said.at(-1)).toBe(hours.at(-1));
      }
    }
  });

  it("a realtime or summary subscription says no times, whatever the zone", () => {
    expect(describeDelivery({ ...DEFAULT_DELIVERY }, "Asia/Tokyo")).toBe("a card per thread");
    expect(describeDelivery({ ...DEFAULT_DELIVERY, mode: "summary" }, "Asia/Tokyo")).toBe(
      "weekly summary only",
    );
  });
});
