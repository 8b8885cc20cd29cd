import { describe, expect, it } from "vitest";
import { suggestedPrompts } from "../../src/ask/suggested-prompts.js";
import { understandQuestion } from "../../src/ask/understand-question.js";

const NOW = Date.parse("2025-11-26T15:00:00Z");
const read = (q: string) => {
  const r = understandQuestion(q, { now: NOW, timeZone: "UTC" });
  if (!r.ok) throw new Error(`${q}: ${r.reply}`);
  return r.understood;
};

describe("suggestedPrompts", () => {
  it("asks about the workspace's own groups, four prompts at most", () => {
    expect(
      suggestedPrompts([
        "Lumen DB Support",
        "Saturday Rides",
        "Lumen DB Support",
        "Bike Workshop & Gear",
        "X",
      ]),
    ).toEqual([
      {
        title: "Unhappy this week in Lumen DB Support",
        message: "What are people unhappy about this week in Lumen DB Support?",
      },
      {
        title: "Unanswered in Saturday Rides",
        message: "Which questions are still unanswered in Saturday Rides?",
      },
      {
        title: "Today in Bike Workshop & Gear",
        message: "What are people saying today in Bike Workshop & Gear?",
      },
      { title: "The last 30 days", message: "What happened in the last 30 days?" },
    ]);
  });

  it("without groups, asks the same questions of every group followed", () => {
    expect(suggestedPrompts([]).map((p) => p.message)).toEqual([
      "What are people unhappy about this week?",
      "Which questions are still unanswered?",
      "What are people saying today?",
      "What happened in the last 30 days?",
    ]);
  });

  it("each prompt is a question the reader understands exactly: its group, period and filter, no stray topic", () => {
    const [unhappy, unanswered, today, month] = suggestedPrompts([
      "Saturday Rides",
      "Pocketbook Android Beta",
      "Bike Workshop & Gear",
    ]).map((p) => read(p.message));
    expect(unhappy).toMatchObject({ rangeSource: "said", tone: "negative", unanswered: false });
    expect(unhappy?.range.label).toBe("Nov 20–26");
    expect(unhappy?.groupRefs.map((g) => [g.ref, g.topic])).toEqual([["Saturday Rides", undefined]]);
    expect(unanswered).toMatchObject({ unanswered: true, rangeSource: "default" });
    expect(unanswered?.groupRefs.map((g) => [g.ref, g.topic])).toEqual([
      ["Pocketbook Android Beta", undefined],
    ]);
    expect(today?.range.label).toBe("today (Nov 26)");
    expect(today?.groupRefs.map((g) => [g.ref, g.topic])).toEqual([["Bike Workshop & Gear", undefined]]);
    expect(month).toMatchObject({ rangeSource: "said", groupRefs: [], unanswered: false });
    expect(month?.topic).toBeUndefined();
    expect(month?.range.label).toBe("Oct 28 – Nov 26");
  });
});
