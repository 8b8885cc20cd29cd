import { describe, expect, it } from "vitest";
import { decodeMore, encodeMore } from "../../../src/ask/more-state.js";
import { readTimeRange } from "../../../src/ask/time-range.js";
import type { AnswerThread, AskAnswer, AskQuestion, PeriodFigures } from "../../../src/ask/types.js";
import { emptyTones } from "../../../src/domain/weekly-stats.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { decodeState, threadRefSchema } from "../../../src/slack/button-values.js";
import { renderAskAnswer, renderAskText, understoodLine } from "../../../src/slack/render/ask-answer.js";
import { buttons } from "../commands/helpers.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits } from "./walk.js";

const NOW = Date.parse("2025-11-26T15:00:00Z");
const r = readTimeRange("this week", { now: NOW, timeZone: "Europe/Berlin" });
if (r.kind !== "range") throw new Error("range");
const RANGE = r.range;
const SUPPORT = { id: "g-support", name: "Lumen DB Support" };

const q = (o: Partial<AskQuestion> = {}): AskQuestion => ({
  groups: [SUPPORT],
  scope: "named",
  range: RANGE,
  unanswered: false,
  questionsOnly: false,
  topic: "pricing",
  ...o,
});

function thread(i: number, o: Partial<AnswerThread["thread"]> = {}): AnswerThread {
  return {
    groupId: SUPPORT.id,
    groupName: SUPPORT.name,
    thread: {
      id: `t${i}`,
      title: `Pricing question ${i}`,
      lastMessageDate: "2025-11-25T10:00:00.000Z",
      messageCount: 10 - i,
      summary: `Summary ${i} from the service.`,
      sentiment: i % 2 === 0 ? "negative" : "positive",
      isQuestionLed: i === 0,
      questionResponseStatus: i === 0 ? "unanswered" : "answered",
      ...o,
    },
  };
}

const figures = (o: Partial<PeriodFigures> = {}): PeriodFigures => ({
  threads: 7,
  messages: 42,
  withoutCount: 0,
  tones: { ...emptyTones(), negative: 4, positive: 3 },
  unanswered: 1,
  ...o,
});

const answer = (o: Partial<AskAnswer> = {}): AskAnswer => ({
  question: q(),
  current: figures(),
  previous: figures({ threads: 5, tones: { ...emptyTones(), negative: 1, positive: 4 } }),
  byGroup: [],
  threads: Array.from({ length: 7 }, (_, i) => thread(i)),
  failures: [],
  limits: { cappedGroups: [], searchCapped: false, groupsLeftOut: 0 },
  ...o,
});

const firstSection = (blocks: unknown[]) => (blocks[0] as { text: { text: string } }).text.text;

describe("renderAskAnswer", () => {
  it("starts with what it understood, then the figures from the listings", () => {
    const m = renderAskAnswer({ answer: answer(), moreValue: "v" });
    expect(firstSection(m.blocks)).toBe(
      [
        "In *Lumen DB Support*, Nov 20–26, about “pricing”:",
        "*7 threads* · 42 messages · 40% more than in Nov 13–19 (5)",
        ":large_green_circle: 3 positive · :red_circle: 4 negative",
        "Negative: 57% of rated threads (20% in Nov 13–19)",
        ":clock3: 1 unanswered question",
      ].join("\n"),
    );
    expect(m.text).toBe("In Lumen DB Support, Nov 20–26, about “pricing”: 7 threads");
  });

  it("shows five compact cards with View messages and the service's summary quoted as its own, then N more", () => {
    const m = renderAskAnswer({ answer: answer(), moreValue: "next-page" });
    const view = buttons(m.blocks).filter((b) => b.action_id === ACTIONS.viewMessages);
    expect(view.map((b) => decodeState(threadRefSchema, b.value))).toEqual(
      [0, 1, 2, 3, 4].map((i) => ({ g: SUPPORT.id, t: `t${i}`, n: `Pricing question ${i}`, p: 1 })),
    );
    const texts = allTexts(m.blocks);
    expect(texts).toContain(
      "*Pricing question 0*\n:red_circle: Negative · 10 messages · :question: unanswered · last activity <!date^1764064800^{date_short_pretty} at {time}|2025-11-25 10:00 UTC>",
    );
    expect(texts).toContain("The service's AI summary: “Summary 0 from the service.”");
    expect(texts).toContain("…and 2 more matching threads.");
    const more = buttons(m.blocks).find((b) => b.action_id === ACTIONS.askMore);
    expect([more?.text.text, more?.value]).toEqual(["Show 2 more", "next-page"]);
  });

  it("the next page names the same question and which threads these are, without the figures", () => {
    const m = renderAskAnswer({ answer: answer(), offset: 5 });
    expect(firstSection(m.blocks)).toBe("In *Lumen DB Support*, Nov 20–26, about “pricing”:");
    expect(allTexts(m.blocks)).toContain("Threads 6–7 of 7");
    expect(buttons(m.blocks).filter((b) => b.action_id === ACTIONS.viewMessages)).toHaveLength(2);
    expect(buttons(m.blocks).some((b) => b.action_id === ACTIONS.askMore)).toBe(false);
  });

  it("says when nothing matched, with the period before and a hint", () => {
    const m = renderAskAnswer({
      answer: answer({
        current: figures({ threads: 0, messages: 0, tones: emptyTones(), unanswered: 0 }),
        threads: [],
      }),
    });
    expect(firstSection(m.blocks)).toBe(
      "In *Lumen DB Support*, Nov 20–26, about “pricing”:\nNo matching thread in Nov 20–26 (5 threads in Nov 13–19). Try a longer period (“last 30 days”) or fewer words.",
    );
  });

  it("does not suggest a longer period when the period is a month or more", () => {
    const long = readTimeRange("last 3 months", { now: NOW, timeZone: "Europe/Berlin" });
    if (long.kind !== "range") throw new Error("range");
    const m = renderAskAnswer({
      answer: answer({
        question: q({ range: long.range }),
        current: figures({ threads: 0, messages: 0, tones: emptyTones(), unanswered: 0 }),
        previous: figures({ threads: 0, messages: 0, tones: emptyTones(), unanswered: 0 }),
        threads: [],
      }),
    });
    expect(firstSection(m.blocks).split("\n")[1]).toBe(
      "No matching thread in Aug 27 – Nov 26. Try other words.",
    );
  });

  it("names where the groups came from, the feeling and the question filters", () => {
    const two = [SUPPORT, { id: "g2", name: "Saturday Rides" }];
    expect(understoodLine(q({ scope: "channel", scopeChannelId: "C0SUPPORT", topic: undefined }))).toBe(
      "In *Lumen DB Support* (followed in <#C0SUPPORT>), Nov 20–26:",
    );
    expect(understoodLine(q({ scope: "workspace", groups: two, tone: "negative", topic: undefined }))).toBe(
      "In *Lumen DB Support* and *Saturday Rides* (every group this workspace follows), Nov 20–26, negative threads:",
    );
    const five = ["A", "B", "C", "D", "E"].map((n) => ({ id: n, name: n }));
    expect(understoodLine(q({ scope: "workspace", groups: five, unanswered: true, topic: "sync" }))).toBe(
      "In *A*, *B*, *C* and 2 more groups (every group this workspace follows), Nov 20–26, unanswered questions about “sync”:",
    );
    expect(understoodLine(q({ tone: "positive", questionsOnly: true }))).toBe(
      "In *Lumen DB Support*, Nov 20–26, positive questions about “pricing”:",
    );
  });

  it("leaves the sentiment split out when a feeling was asked, and adds up by group", () => {
    const m = renderAskAnswer({
      answer: answer({
        question: q({ tone: "negative", topic: undefined }),
        byGroup: [
          { name: "Lumen DB Support", threads: 5 },
          { name: "Saturday Rides", threads: 2 },
        ],
      }),
    });
    expect(firstSection(m.blocks)).toBe(
      [
        "In *Lumen DB Support*, Nov 20–26, negative threads:",
        "*7 threads* · 42 messages · 40% more than in Nov 13–19 (5)",
        ":clock3: 1 unanswered question",
        "By group: Lumen DB Support 5 · Saturday Rides 2",
      ].join("\n"),
    );
  });

  it("says which bounds were reached and which groups could not be read", () => {
    const m = renderAskAnswer({
      answer: answer({
        failures: [{ name: "Pocketbook Beta", reply: "The API key cannot read that." }],
        limits: { cappedGroups: [{ name: "Big group", read: 10_000 }], searchCapped: true, groupsLeftOut: 3 },
      }),
    });
    expect((m.blocks[1] as { elements: { text: string }[] }).elements[0]?.text).toBe(
      [
        "Big group: counted among its newest 10,000 threads only.",
        "Topic matches are the service's best 300 search results.",
        "3 more groups not read (at most 12 a question): name one to ask about it.",
        ":warning: Pocketbook Beta: The API key cannot read that.",
      ].join("\n"),
    );
  });

  it("escapes community text and stays within Block Kit's limits", () => {
    const hostile = Array.from({ length: 12 }, (_, i) =>
      thread(i, {
        title: `<!channel> <@U123> & <https://evil.example|docs> ${"x".repeat(400)}`,
        summary: `<!here> ${"y".repeat(3000)}`,
      }),
    );
    const m = renderAskAnswer({
      answer: answer({ question: q({ topic: "<!everyone> & co" }), threads: hostile }),
      moreValue: "v",
    });
    expectNoLiveTokens(m.blocks);
    expectWithinLimits(m.blocks);
    expect(firstSection(m.blocks).split("\n")[0]).toBe(
      "In *Lumen DB Support*, Nov 20–26, about “&lt;!everyone&gt; &amp; co”:",
    );
  });

  it("renders a reply without figures as one section", () => {
    expect(renderAskText("I count threads, not people.")).toEqual({
      text: "I count threads, not people.",
      blocks: [{ type: "section", text: { type: "mrkdwn", text: "I count threads, not people." } }],
    });
  });

  it("matches the snapshot of a full answer", () => {
    expect(renderAskAnswer({ answer: answer(), moreValue: "v" })).toMatchSnapshot();
  });
});

describe("Show more's value", () => {
  it("carries the question and the offset, and a foreign value is refused", () => {
    const value = encodeMore(
      q({ tone: "negative", unanswered: true, scope: "channel", scopeChannelId: "C0SUP" }),
      5,
    );
    expect(value?.length).toBeLessThanOrEqual(2000);
    const back = decodeMore(value);
    expect(back?.offset).toBe(5);
    expect(back?.question).toEqual({
      ...q({ tone: "negative", unanswered: true, scope: "channel", scopeChannelId: "C0SUP" }),
      range: { ...RANGE, words: "" },
    });
    expect(decodeMore('{"g":[]}')).toBeUndefined();
    expect(decodeMore("not json")).toBeUndefined();
  });
});
