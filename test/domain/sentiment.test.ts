import { describe, expect, it } from "vitest";
import { questionStatusLabel, sentimentLabel } from "../../src/domain/sentiment.js";

describe("sentimentLabel", () => {
  it.each([
    // raw, tone, label, emoji
    ["positive", "positive", "Positive", ":large_green_circle:"],
    ["  POSITIVE ", "positive", "Positive", ":large_green_circle:"],
    ["very_positive", "positive", "Very positive", ":large_green_circle:"],
    ["Very Negative", "negative", "Very negative", ":red_circle:"],
    ["slightly-negative", "negative", "Slightly negative", ":red_circle:"],
    ["pos", "positive", "Positive", ":large_green_circle:"],
    ["NEG", "negative", "Negative", ":red_circle:"],
    ["neu", "neutral", "Neutral", ":white_circle:"],
    ["Neutral", "neutral", "Neutral", ":white_circle:"],
    ["mixed", "mixed", "Mixed", ":large_yellow_circle:"],
    ["positive and negative", "mixed", "Positive and negative", ":large_yellow_circle:"],
    ["neutral_to_positive", "positive", "Neutral to positive", ":large_green_circle:"],
    ["frustrated", "negative", "Frustrated", ":red_circle:"],
    ["Angry", "negative", "Angry", ":red_circle:"],
    ["grateful", "positive", "Grateful", ":large_green_circle:"],
    ["0.8", "positive", "Positive (0.8)", ":large_green_circle:"],
    ["-0.6", "negative", "Negative (-0.6)", ":red_circle:"],
    ["0.1", "neutral", "Neutral (0.1)", ":white_circle:"],
    ["-1", "negative", "Negative (-1)", ":red_circle:"],
    ["+1", "positive", "Positive (+1)", ":large_green_circle:"],
    // Kept as text, neutral emoji:
    ["5", "unknown", "5", ":white_circle:"],
    ["curious", "unknown", "curious", ":white_circle:"],
    ["not positive", "unknown", "not positive", ":white_circle:"],
    ["Sarcastic   but  friendly", "unknown", "Sarcastic but friendly", ":white_circle:"],
  ] as const)("%j -> %s / %s", (raw, tone, label, emoji) => {
    expect(sentimentLabel(raw)).toEqual({ tone, label, emoji });
  });

  it("reports an absent value as not rated yet (the one phrase for it)", () => {
    for (const raw of [undefined, null, "", "   "]) {
      expect(sentimentLabel(raw)).toEqual({
        label: "Not rated yet",
        emoji: ":white_circle:",
        tone: "unknown",
      });
    }
  });

  it("caps an unrecognised value at 40 characters without splitting an emoji", () => {
    const l = sentimentLabel(`${"😀".repeat(50)}`).label;
    expect(Array.from(l)).toHaveLength(40);
    expect(l.endsWith("😀…")).toBe(true);
  });
});

describe("questionStatusLabel", () => {
  it.each([
    ["answered", "answered", "Answered"],
    ["ANSWERED", "answered", "Answered"],
    ["resolved", "answered", "Answered"],
    ["has_answer", "answered", "Answered"],
    ["unanswered", "unanswered", "Unanswered"],
    ["not_answered", "unanswered", "Unanswered"],
    ["Not Answered", "unanswered", "Unanswered"],
    ["no_response", "unanswered", "Unanswered"],
    ["unresolved", "unanswered", "Unanswered"],
    ["partially_answered", "partial", "Partially answered"],
    ["Partially Answered", "partial", "Partially answered"],
    ["partial", "partial", "Partially answered"],
    ["pending", "pending", "Awaiting answer"],
    ["awaiting_response", "pending", "Awaiting answer"],
    ["needs-answer", "pending", "Awaiting answer"],
    ["in progress", "pending", "Awaiting answer"],
    ["n/a", "unknown", "n/a"],
    ["not_a_question", "unknown", "not_a_question"],
  ] as const)("%j -> %s", (raw, status, label) => {
    const q = questionStatusLabel(raw);
    expect(q.status).toBe(status);
    expect(q.label).toBe(label);
  });

  it("gives each status its own emoji", () => {
    expect(questionStatusLabel("answered").emoji).toBe(":white_check_mark:");
    expect(questionStatusLabel("unanswered").emoji).toBe(":question:");
    expect(questionStatusLabel("partial").emoji).toBe(":large_orange_diamond:");
    expect(questionStatusLabel("pending").emoji).toBe(":clock3:");
    expect(questionStatusLabel(undefined)).toEqual({
      label: "Unknown",
      emoji: ":grey_question:",
      status: "unknown",
    });
  });
});
