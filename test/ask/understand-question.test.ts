import { describe, expect, it } from "vitest";
import { readTimeRange, type Clock } from "../../src/ask/time-range.js";
import type { Understanding } from "../../src/ask/types.js";
import {
  cleanQuestion,
  EXAMPLE_QUESTIONS,
  examplesReply,
  understandQuestion,
} from "../../src/ask/understand-question.js";

/** Wednesday Nov 26, 2025, 10:00 in New York (15:00 UTC). */
const NOW = Date.parse("2025-11-26T15:00:00Z");
const NY: Clock = { now: NOW, timeZone: "America/New_York" };
const iso = (ms: number) => new Date(ms).toISOString();

interface Seen {
  when: string;
  source: Understanding["rangeSource"];
  tone?: string;
  unanswered?: true;
  questions?: true;
  topic?: string;
  groups?: string[];
  channel?: string;
}

/** What a reader sees of a reading: period, filters, topic, group phrases ("!" = said as a group). */
function seen(u: Understanding): Seen {
  return {
    when: u.range.label,
    source: u.rangeSource,
    ...(u.tone ? { tone: u.tone } : {}),
    ...(u.unanswered ? { unanswered: true as const } : {}),
    ...(u.questionsOnly ? { questions: true as const } : {}),
    ...(u.topic ? { topic: u.topic } : {}),
    ...(u.groupRefs.length > 0 ? { groups: u.groupRefs.map((g) => `${g.ref}${g.explicit ? "!" : ""}`) } : {}),
    ...(u.channelId ? { channel: u.channelId } : {}),
  };
}

function read(text: string, clock: Clock = NY, kept?: string): Understanding {
  const r = understandQuestion(text, { ...clock, keptRangeWords: kept });
  if (!r.ok) throw new Error(`refused: ${r.reply}`);
  return r.understood;
}

describe("understandQuestion: each kind of question, read without guessing", () => {
  const rows: Array<[string, Seen]> = [
    [
      "what are people saying about pricing this week?",
      { when: "Nov 20–26", source: "said", topic: "pricing" },
    ],
    ["unanswered questions today", { when: "today (Nov 26)", source: "said", unanswered: true }],
    ["what happened in the last 30 days?", { when: "Oct 28 – Nov 26", source: "said" }],
    ["negative threads since Monday", { when: "Nov 24–26", source: "said", tone: "negative" }],
    ["and last month?", { when: "October", source: "said" }],
    ["angry people yesterday", { when: "yesterday (Nov 25)", source: "said", tone: "negative" }],
    [
      "what are people unhappy about this week in Lumen DB Support?",
      {
        when: "Nov 20–26",
        source: "said",
        tone: "negative",
        topic: "Lumen DB Support",
        groups: ["Lumen DB Support"],
      },
    ],
    [
      "which questions are still unanswered in the Lumen DB group?",
      { when: "Nov 20–26", source: "default", unanswered: true, topic: "Lumen DB", groups: ["Lumen DB!"] },
    ],
    [
      "is the new release going down badly?",
      { when: "Nov 20–26", source: "default", tone: "negative", topic: "release" },
    ],
    [
      "are people happy with the docs?",
      { when: "Nov 20–26", source: "default", tone: "positive", topic: "docs" },
    ],
    [
      "not happy with the docs lately",
      { when: "Nov 20–26", source: "default", tone: "negative", topic: "docs" },
    ],
    [
      "any questions about pricing between Nov 1 and Nov 10",
      { when: "Nov 1–10", source: "said", questions: true, topic: "pricing" },
    ],
    [
      "complaints about sync in the mobile app",
      {
        when: "Nov 20–26",
        source: "default",
        tone: "negative",
        topic: "sync mobile app",
        groups: ["mobile app"],
      },
    ],
    [
      "unanswered questions in <#C0SUPPORT|support>",
      { when: "Nov 20–26", source: "default", unanswered: true, channel: "C0SUPPORT" },
    ],
    ["what's happening?", { when: "Nov 20–26", source: "default" }],
    [
      'threads about "Saturday" in Saturday Rides in October',
      { when: "October", source: "said", topic: "Saturday Saturday Rides", groups: ["Saturday Rides"] },
    ],
    ["open questions since 9am", { when: "today since 09:00 (Nov 26)", source: "said", unanswered: true }],
    [
      "<@U0BOT> what are people saying about <https://example.com/pricing|pricing>?",
      { when: "Nov 20–26", source: "default", topic: "pricing" },
    ],
    [
      "mixed feelings about the roadmap in the past week",
      { when: "Nov 20–26", source: "said", tone: "mixed", topic: "roadmap" },
    ],
    // The examples of docs/ask.md.
    [
      "what happened yesterday in Saturday Rides?",
      { when: "yesterday (Nov 25)", source: "said", topic: "Saturday Rides", groups: ["Saturday Rides"] },
    ],
    [
      'complaints about "sync" in the mobile app',
      {
        when: "Nov 20–26",
        source: "default",
        tone: "negative",
        topic: "sync mobile app",
        groups: ["mobile app"],
      },
    ],
    ["open questions since Monday", { when: "Nov 24–26", source: "said", unanswered: true }],
    [
      "is the new release going down badly in Lumen DB Support lately?",
      {
        when: "Nov 20–26",
        source: "default",
        tone: "negative",
        topic: "release Lumen DB Support",
        groups: ["Lumen DB Support"],
      },
    ],
    ["anything still waiting for a reply?", { when: "Nov 20–26", source: "default", unanswered: true }],
  ];
  it.each(rows)("%s", (question, expected) => {
    expect(seen(read(question))).toEqual(expected);
  });

  it("keeps a group phrase's own topic: the words left when it is a group", () => {
    const u = read('threads about "Saturday" in Saturday Rides in October');
    expect(u.groupRefs).toEqual([{ ref: "Saturday Rides", explicit: false, topic: "Saturday" }]);
    expect(read("complaints about sync in the mobile app").groupRefs[0]?.topic).toBe("sync");
    expect(read("is the new release going down badly in Lumen DB Support lately?").groupRefs[0]?.topic).toBe(
      "release",
    );
  });

  it("a group named before a comma or a colon: the name alone is read too, after the whole tail", () => {
    expect(read("in Saturday Rides, what happened this month?").groupRefs).toEqual([
      { ref: "Saturday Rides, what happened", explicit: false },
      { ref: "Saturday Rides", explicit: false },
    ]);
    expect(read("pricing complaints in Lumen DB Support: anything new?").groupRefs[1]).toEqual({
      ref: "Lumen DB Support",
      explicit: false,
      topic: "pricing",
    });
  });

  it("every example question the app shows is read, none refused", () => {
    for (const q of EXAMPLE_QUESTIONS) expect(understandQuestion(q, NY).ok, q).toBe(true);
  });

  it("keeps the conversation's period when the question names none, and names its own otherwise", () => {
    expect(seen(read("what about pricing?", NY, "last month"))).toEqual({
      when: "October",
      source: "kept",
      topic: "pricing",
    });
    expect(seen(read("and today?", NY, "last month"))).toEqual({ when: "today (Nov 26)", source: "said" });
    expect(read("what about pricing?", NY, "").rangeSource).toBe("default");
  });

  it("reads days in the asker's own time zone", () => {
    const late = { now: Date.parse("2025-11-26T02:00:00Z") };
    const ny = read("unanswered questions today", { ...late, timeZone: "America/New_York" });
    const berlin = read("unanswered questions today", { ...late, timeZone: "Europe/Berlin" });
    expect([ny.range.label, iso(ny.range.from)]).toEqual(["today (Nov 25)", "2025-11-25T05:00:00.000Z"]);
    expect([berlin.range.label, iso(berlin.range.from)]).toEqual([
      "today (Nov 26)",
      "2025-11-25T23:00:00.000Z",
    ]);
  });
});

describe("understandQuestion: what it refuses, each with an example it can read", () => {
  const TRY = "Try “what are people unhappy about this week?” or “unanswered questions since Monday”.";
  const PERIODS = "“today”, “this week”, “last 30 days”, “since Monday” or “last month”";
  const rows: Array<[string, string]> = [
    [
      "who is the most active member?",
      `I count threads and what the service says about them, not people. ${TRY}`,
    ],
    [
      "subscribe this channel to Lumen DB Support",
      `I only answer questions about the community; I change nothing. To set something up, use \`/insight help\`. To ask, try “what are people unhappy about this week?” or “unanswered questions since Monday”.`,
    ],
    ["will people like the new pricing?", `I can only count what was already said, not predict. ${TRY}`],
    [
      "are people happy or unhappy about pricing?",
      "You asked for unhappy and happy threads at once. Ask for one feeling, or leave it out to see how the sentiment splits, e.g. “how do people feel about pricing this week?”.",
    ],
    [
      "what happened 2 weeks ago",
      "“2 weeks ago” is a moment, not a period. Ask for one, e.g. “last 2 weeks” or “since Monday”.",
    ],
    [
      "what happens tomorrow?",
      `“tomorrow” is in the future: I can only count what was already said. Try ${PERIODS}.`,
    ],
    ["anything this morning?", `I cannot count a period from “this morning”. Try ${PERIODS}.`],
    [
      "threads before Monday",
      `I count periods that run up to now or whole days, not “before” or “until” a date. Try ${PERIODS}.`,
    ],
    [
      "threads since Monday last month",
      `That names more than one period (“Monday” and “last month”). Ask about one, e.g. ${PERIODS}.`,
    ],
    [
      `pricing ${"and more ".repeat(40)}`.trim(),
      "That question is too long (367 characters; at most 300). Ask about one thing at a time, e.g. “what are people unhappy about this week?” or “unanswered questions since Monday”.",
    ],
  ];
  it.each(rows)("%s", (question, reply) => {
    expect(understandQuestion(question, NY)).toEqual({ ok: false, kind: "refused", reply });
  });

  it.each(["", "hi", "hello!", "thanks", "help", "<@U0BOT>"])(
    "%j gets the examples of what it can read",
    (q) => {
      expect(understandQuestion(q, NY)).toEqual({ ok: false, kind: "examples", reply: examplesReply() });
    },
  );

  it("the examples reply lists every example question", () => {
    expect(examplesReply()).toBe(
      [
        "Ask me about the community in plain words, for example:",
        "• “what are people unhappy about this week?”",
        "• “unanswered questions since Monday”",
        "• “what are people saying about pricing in the last 30 days?”",
        "• “is the new release going down badly?”",
        "I count threads from the service's listings and search: a period (default: the last 7 days), a topic, a feeling (unhappy, happy), unanswered questions. Name a group to look in one (“… in Lumen DB Support”).",
      ].join("\n"),
    );
  });
});

describe("readTimeRange: the instants of each period and of the period before", () => {
  const rows: Array<[string, [string, string], [string, string]]> = [
    // This week: 7 calendar days up to now; before: the 7 days before, up to the same time of day.
    [
      "this week",
      ["2025-11-20T05:00:00.000Z", "2025-11-26T15:00:00.000Z"],
      ["2025-11-13T05:00:00.000Z", "2025-11-19T15:00:00.000Z"],
    ],
    [
      "today",
      ["2025-11-26T05:00:00.000Z", "2025-11-26T15:00:00.000Z"],
      ["2025-11-25T05:00:00.000Z", "2025-11-25T15:00:00.000Z"],
    ],
    // New York left daylight saving time on Nov 2: the same wall time is an hour later in UTC.
    [
      "last 30 days",
      ["2025-10-28T04:00:00.000Z", "2025-11-26T15:00:00.000Z"],
      ["2025-09-28T04:00:00.000Z", "2025-10-27T14:00:00.000Z"],
    ],
    [
      "since Monday",
      ["2025-11-24T05:00:00.000Z", "2025-11-26T15:00:00.000Z"],
      ["2025-11-21T18:59:59.999Z", "2025-11-24T04:59:59.999Z"],
    ],
    [
      "last month",
      ["2025-10-01T04:00:00.000Z", "2025-11-01T03:59:59.999Z"],
      ["2025-09-01T04:00:00.000Z", "2025-10-01T03:59:59.999Z"],
    ],
    [
      "this month",
      ["2025-11-01T04:00:00.000Z", "2025-11-26T15:00:00.000Z"],
      ["2025-10-01T04:00:00.000Z", "2025-10-26T14:00:00.000Z"],
    ],
  ];
  it.each(rows)("%s", (words, [from, to], [pFrom, pTo]) => {
    const r = readTimeRange(words, NY);
    if (r.kind !== "range") throw new Error(JSON.stringify(r));
    expect([iso(r.range.from), iso(r.range.to)]).toEqual([from, to]);
    expect([iso(r.range.previous.from), iso(r.range.previous.to)]).toEqual([pFrom, pTo]);
    expect(r.range.words).toBe(words);
  });

  it("leaves weekday and month names that are part of a name alone", () => {
    expect(readTimeRange("unanswered in Saturday Rides", NY)).toEqual({ kind: "none" });
    expect(readTimeRange("the March release", NY)).toEqual({ kind: "none" });
    expect(readTimeRange("issues now", NY)).toEqual({ kind: "none" });
  });

  it("reads a past month name as the one that was", () => {
    const r = readTimeRange("in March", NY);
    expect(r.kind === "range" && [r.range.label, iso(r.range.from)]).toEqual([
      "March",
      "2025-03-01T05:00:00.000Z",
    ]);
  });
});

describe("cleanQuestion", () => {
  it("drops mentions, keeps a channel aside, shows links by label and undoes Slack's escapes", () => {
    expect(
      cleanQuestion("<@U0BOT>  bugs &amp; crashes in <#C0SUP|support> see <https://x.example|docs> &lt;3"),
    ).toEqual({
      text: "bugs & crashes in see docs <3",
      channelId: "C0SUP",
    });
  });
});
