import { describe, expect, it } from "vitest";
import { buildThreadDigest } from "../../../src/domain/thread-digest.js";
import { renderThreadDigest } from "../../../src/slack/render/thread-digest.js";
import { createdEvent, digest, hostile, listingItem, updatedEvent } from "../../fixtures/threads/build.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits } from "./walk.js";

const now = new Date("2025-03-06T12:00:00.000Z");

type AnyBlock = { type: string; text?: { type: string; text: string }; fields?: Array<{ text: string }> };
const blocksOf = (r: { blocks: unknown[] }) => r.blocks as AnyBlock[];
const header = (r: { blocks: unknown[] }) => blocksOf(r).find((b) => b.type === "header")?.text?.text ?? "";
const joined = (r: { blocks: unknown[] }) => allTexts(r.blocks).join("\n");

describe("renderThreadDigest", () => {
  const enriched = buildThreadDigest(updatedEvent(), listingItem("thr_8c1f2a9e"));

  it("renders a realistic re-enriched thread", () => {
    const r = renderThreadDigest(enriched, { now });
    expect(r).toMatchSnapshot();

    expect(header(r)).toBe("Card top-ups failing for EU users since Monday");
    const all = joined(r);
    expect(all).toContain("The payments team shipped a fix in 4.12.1 overnight");
    expect(all).toContain("*Sentiment:* :red_circle: Negative");
    expect(all).toContain("*Keywords:* card top-up · error 402 · EU · double debit · refund · 4.12.1");
    expect(all).toContain("*Messages:* 52");
    expect(all).toContain("*Participants:* 11");
    expect(all).toContain("*Question:* :white_check_mark: Answered");
    expect(all).toContain("*Acme Wallet – Support (EN)*");
    // Dates in each reader's own zone, with a plain UTC fallback.
    expect(all).toContain(
      "First message <!date^1740988720^{date_short_pretty} at {time}|2025-03-03 07:58 UTC> · Last activity <!date^1741249872^{date_short_pretty} at {time}|2025-03-06 08:31 UTC>",
    );
    expect(all).toContain(
      ":arrows_counterclockwise: Updated <!date^1741250703^{date_short_pretty} at {time}|2025-03-06 08:45 UTC>",
    );
    expect(r.text).toBe(
      "Updated thread in Acme Wallet – Support (EN): Card top-ups failing for EU users since Monday (Negative)",
    );
    expectWithinLimits(r.blocks);
  });

  it("says quietly that the sentiment is not rated yet before the listing brought it", () => {
    const r = renderThreadDigest(buildThreadDigest(createdEvent(), undefined), { now });
    expect(r).toMatchSnapshot();
    const all = joined(r);
    expect(all).toContain("*Sentiment:* not rated yet");
    expect(all).not.toContain(":hourglass_flowing_sand:");
    expect(all).not.toContain("Keywords");
    expect(all).not.toContain("Question");
    expect(all).not.toMatch(/insights|Enriched/);
    expect(all).toMatch(/Summarised <!date\^\d+\^\{date_short_pretty\} at \{time\}\|2025-03-05 18:02 UTC>/);
    expect(all).toContain("*Messages:* 37");
    expect(r.text).toBe(
      "New thread in Acme Wallet – Support (EN): Card top-ups failing for EU users since Monday",
    );
  });

  it("shows an unanswered question and a sentiment it does not know as text", () => {
    const r = renderThreadDigest(
      digest({ isQuestionLed: true, questionResponseStatus: "unanswered", sentiment: "Curious" }),
      { now },
    );
    const all = joined(r);
    expect(all).toContain("*Question:* :question: Unanswered");
    expect(all).toContain("*Sentiment:* :white_circle: Curious");
  });

  it("fills gaps with plain words, never with empty texts", () => {
    const r = renderThreadDigest(
      digest({
        title: "",
        summary: undefined,
        groupName: "",
        keywords: [],
        messageCount: undefined,
        participantCount: undefined,
        isQuestionLed: undefined,
        firstMessageDate: undefined,
        lastMessageDate: undefined,
      }),
      { now },
    );
    expect(header(r)).toBe("Untitled thread");
    const all = joined(r);
    // A missing summary is left out, never announced as "No summary yet".
    expect(all).not.toContain("No summary");
    expect(blocksOf(r).filter((b) => b.type === "section")).toHaveLength(1);
    expect(all).toContain("*Messages:* –");
    expect(all).toContain("*group-0001*");
    expectWithinLimits(r.blocks);
  });

  it("lets no community text mention anyone or disguise a link", () => {
    const { event, listing } = hostile();
    const r = renderThreadDigest(buildThreadDigest(event, listing), { now });
    expectNoLiveTokens(r.blocks);
    expect(r.text).not.toMatch(/<[!@#h]/);
    const all = joined(r);
    // Still readable as typed:
    expect(all).toContain("&lt;https://evil.example/claim|https://acme.example/official&gt;");
    expect(all).toContain("&amp;lt;!channel&amp;gt; stays text");
    expect(all).toContain("Tom &amp; Jerry &gt; 3 &lt; 4");
    expect(all).toContain("@\u200Dchannel @\u200Deveryone");
    expect(all).toContain("*Acme &lt;!everyone&gt; Support*");
    expect(header(r).replaceAll("\u200D", "")).toBe("<!channel> FREE AIRDROP <@U024BE7LH> claim now @here");
    expect(all).toContain(
      "&lt;!channel&gt; · &lt;https://evil.example|airdrop&gt; · @\u200Dhere · &amp;amp;",
    );
    expectWithinLimits(r.blocks);
  });

  it("holds every limit with a 50k summary, 500 keywords and a 300-character title", () => {
    const huge = digest({
      title: `${"Very long title ".repeat(20)}`.slice(0, 300),
      summary: "Lorem <!here> ipsum & dolor sit amet. ".repeat(1400).slice(0, 50_000),
      keywords: Array.from({ length: 500 }, (_, i) => `keyword-${i} <@U${i}>`),
      groupName: "G".repeat(5000),
      sentiment: "S".repeat(5000),
      questionResponseStatus: "Q".repeat(5000),
      isQuestionLed: true,
    });
    expect(huge.summary?.length).toBe(50_000);
    const r = renderThreadDigest(huge, { now });
    expectWithinLimits(r.blocks);
    expectNoLiveTokens(r.blocks);
    expect(header(r).length).toBeLessThanOrEqual(150);
    expect(header(r).endsWith("…")).toBe(true);
    expect(JSON.stringify(r.blocks).length).toBeLessThanOrEqual(12_000);
    const summary = blocksOf(r)[1]?.text?.text ?? "";
    expect(summary.length).toBeGreaterThan(2500);
    expect(summary.endsWith("…")).toBe(true);
    expect(joined(r)).toMatch(/ · and \d+ more/);
    expect(r.text.length).toBeLessThanOrEqual(200);
  });
});
