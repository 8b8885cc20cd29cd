import { describe, expect, it } from "vitest";
import {
  cardFactsOf,
  changeSinceCard,
  describeChange,
  type CardFacts,
} from "../../src/domain/thread-change.js";
import { digest } from "../fixtures/threads/build.js";

const before: CardFacts = {
  title: "Refunds fail for annual plans",
  summary: "Several members cannot get a refund.",
  sentiment: "negative",
  isQuestionLed: true,
  questionResponseStatus: "unanswered",
  messageCount: 5,
  participantCount: 3,
};

describe("describeChange", () => {
  it("names each change in readers' words", () => {
    const after: CardFacts = {
      ...before,
      summary: "Support found the cause; refunds work again.",
      sentiment: "positive",
      questionResponseStatus: "answered",
      messageCount: 8,
    };
    expect(describeChange(before, after)).toEqual([
      "Sentiment Negative → Positive",
      "Unanswered → Answered",
      "+3 messages",
      "summary rewritten",
    ]);
  });

  it("says nothing when nothing a reader sees changed (whitespace and raw spelling included)", () => {
    const same = { ...before, summary: "Several  members cannot\nget a refund.", sentiment: "NEGATIVE" };
    expect(describeChange(before, same)).toEqual([]);
  });

  it("uses singulars and counts down as well as up", () => {
    expect(describeChange(before, { ...before, messageCount: 6, participantCount: 2 })).toEqual([
      "+1 message",
      "−1 participant",
    ]);
  });

  it("does not report a value that arrives late as a change", () => {
    const noSentiment = { ...before, sentiment: undefined, questionResponseStatus: undefined };
    expect(describeChange(noSentiment, before)).toEqual([]);
  });

  it("reports a new title", () => {
    expect(describeChange(before, { ...before, title: "Refunds fixed" })).toEqual(["title changed"]);
  });
});

describe("changeSinceCard", () => {
  const after = { ...before, sentiment: "positive" };
  it("leads with 'changed since marked handled' when handled before this enrichment", () => {
    const triage = { handled: { by: "U1", atMs: 1_000 }, followers: 0 };
    expect(changeSinceCard(before, after, { triage, enrichedAtMs: 2_000 })).toEqual([
      "changed since marked handled",
      "Sentiment Negative → Positive",
    ]);
  });
  it("does not when the thread is open, handled after the enrichment, or nothing changed", () => {
    expect(changeSinceCard(before, after, { triage: { followers: 0 }, enrichedAtMs: 2_000 })).toEqual([
      "Sentiment Negative → Positive",
    ]);
    const later = { handled: { by: "U1", atMs: 3_000 }, followers: 0 };
    expect(changeSinceCard(before, after, { triage: later, enrichedAtMs: 2_000 })[0]).not.toBe(
      "changed since marked handled",
    );
    const handled = { handled: { by: "U1", atMs: 1_000 }, followers: 0 };
    expect(changeSinceCard(before, before, { triage: handled, enrichedAtMs: 2_000 })).toEqual([]);
  });
});

describe("cardFactsOf", () => {
  it("keeps only what a reader compares", () => {
    const facts = cardFactsOf(digest({ sentiment: "mixed", messageCount: 4 }));
    expect(Object.keys(facts).sort()).toEqual(
      [
        "isQuestionLed",
        "messageCount",
        "participantCount",
        "questionResponseStatus",
        "sentiment",
        "summary",
        "title",
      ].sort(),
    );
    expect(facts.sentiment).toBe("mixed");
    expect(facts.messageCount).toBe(4);
  });
});
