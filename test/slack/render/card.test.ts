import { describe, expect, it } from "vitest";
import { DIGEST_ACTIONS } from "../../../src/slack/action-ids.js";
import { renderCompactCard, renderThreadDigest } from "../../../src/slack/render/thread-digest.js";
import { renderCardReplies } from "../../../src/slack/render/card-replies.js";
import { digest } from "../../fixtures/threads/build.js";
import { allTexts, expectNoLiveTokens, expectWithinLimits } from "./walk.js";

type Element = {
  type: string;
  action_id?: string;
  value?: string;
  initial_user?: string;
  style?: string;
  text?: { text: string };
};
type Block = { type: string; block_id?: string; elements?: Element[] };
const blocksOf = (r: { blocks: unknown[] }) => r.blocks as Block[];
const actionsOf = (r: { blocks: unknown[] }) => blocksOf(r).find((b) => b.type === "actions")?.elements ?? [];
const joined = (r: { blocks: unknown[] }) => allTexts(r.blocks).join("\n");

const HANDLED_AT = Date.parse("2025-03-05T14:00:00.000Z");

describe("thread card actions and triage", () => {
  it("every card carries the five public actions, last, naming its thread", () => {
    const r = renderThreadDigest(digest());
    const last = blocksOf(r).at(-1);
    expect(last?.type).toBe("actions");
    expect(last?.block_id).toBe('digest.card:{"g":"group-0001","t":"thread-0001"}');
    expect(actionsOf(r).map((e) => e.action_id)).toEqual([
      DIGEST_ACTIONS.viewMessages,
      DIGEST_ACTIONS.markHandled,
      DIGEST_ACTIONS.assign,
      DIGEST_ACTIONS.follow,
      DIGEST_ACTIONS.remind,
    ]);
    expect(actionsOf(r).map((e) => e.type)).toEqual([
      "button",
      "button",
      "users_select",
      "button",
      "static_select",
    ]);
    const handled = actionsOf(r)[1];
    expect(handled?.text?.text).toBe("Mark handled");
    expect(handled?.value).toBe("handle");
    expect(JSON.parse(actionsOf(r)[0]?.value ?? "{}")).toEqual({
      g: "group-0001",
      t: "thread-0001",
      n: "Synthetic thread",
      p: 1,
    });
  });

  it("shows who handled it and when, the assignee and followers; the button then reopens", () => {
    const r = renderThreadDigest(digest(), {
      triage: {
        handled: { by: "U0BOB", atMs: HANDLED_AT },
        assignee: { user: "U0CAROL", by: "U0BOB", atMs: HANDLED_AT },
        followers: 2,
      },
      change: ["changed since marked handled", "Sentiment Negative → Positive", "+3 messages"],
    });
    expect(r).toMatchSnapshot();
    const all = joined(r);
    expect(all).toContain(
      ":arrows_counterclockwise: changed since marked handled · Sentiment Negative → Positive · +3 messages",
    );
    expect(all).toContain(
      ":ballot_box_with_check: Handled by <@U0BOB> <!date^1741183200^{date_short_pretty} at {time}|2025-03-05 14:00 UTC>",
    );
    expect(all).toContain(":bust_in_silhouette: Assigned to <@U0CAROL>");
    expect(all).toContain(":bell: 2 people following");
    expect(actionsOf(r)[1]?.text?.text).toBe("Reopen");
    expect(actionsOf(r)[1]?.value).toBe("reopen");
    expect(actionsOf(r)[2]?.initial_user).toBe("U0CAROL");
    expectWithinLimits(r.blocks);
  });

  it("one follower reads in the singular", () => {
    expect(joined(renderThreadDigest(digest(), { triage: { followers: 1 } }))).toContain(
      ":bell: 1 person following",
    );
  });

  it("a what-changed line cannot mention anyone", () => {
    const r = renderThreadDigest(digest(), { change: ["Sentiment <!channel> → <@U999|boss>"] });
    expectNoLiveTokens(r.blocks);
    expect(joined(r)).toContain("Sentiment &lt;!channel&gt; → &lt;@U999|boss&gt;");
  });

  it("says when the thread left this channel's filters, and then asks for nothing in green", () => {
    const r = renderThreadDigest(digest(), { noLongerMatches: true });
    expect(joined(r)).toContain(
      ":information_source: No longer matches this channel's filters; kept up to date here.",
    );
    expect(actionsOf(r)[1]?.text?.text).toBe("Mark handled");
    expect(actionsOf(r)[1]?.style).toBeUndefined();
    // A card that matches keeps Mark handled as the primary button.
    expect(actionsOf(renderThreadDigest(digest()))[1]?.style).toBe("primary");
    const compact = renderThreadDigest(digest(), { noLongerMatches: true, format: "compact" });
    expect(actionsOf(compact)[1]?.style).toBeUndefined();
  });

  it("a compact card names its group", () => {
    const r = renderCompactCard(digest({ groupName: "Lumen DB <Support>" }));
    expect(allTexts([r.blocks[0]])[0]).toMatch(/ · :busts_in_silhouette: Lumen DB &lt;Support&gt;$/);
  });

  it("keeps the actions when the content is cut to fit", () => {
    const r = renderThreadDigest(
      digest({
        summary: "word ".repeat(20_000),
        keywords: Array.from({ length: 500 }, (_, i) => `k${i}`),
        groupName: "G".repeat(5_000),
      }),
      { change: ["x".repeat(5_000)] },
    );
    expectWithinLimits(r.blocks);
    expect(blocksOf(r).at(-1)?.type).toBe("actions");
    expect(JSON.stringify(r.blocks).length).toBeLessThanOrEqual(12_000);
  });
});

describe("compact card", () => {
  it("is at most three blocks: one line of facts, triage, the actions", () => {
    const r = renderCompactCard(
      digest({
        sentiment: "negative",
        isQuestionLed: true,
        questionResponseStatus: "unanswered",
        messageCount: 1,
        participantCount: 1,
      }),
      { triage: { handled: { by: "U0BOB", atMs: HANDLED_AT }, followers: 0 } },
    );
    expect(r).toMatchSnapshot();
    expect(r.blocks.length).toBeLessThanOrEqual(3);
    const line = allTexts([r.blocks[0]])[0];
    expect(line).toBe(
      ":red_circle: *Synthetic thread* · Negative · :question: Unanswered · 1 message, 1 participant · :busts_in_silhouette: Synthetic Group",
    );
    expect(joined(r)).toContain("Handled by <@U0BOB>");
    expect(blocksOf(r).at(-1)?.type).toBe("actions");
    expect(actionsOf(r)).toHaveLength(5);
  });

  it("is two blocks when nobody triaged it, and the same through renderThreadDigest's format", () => {
    const r = renderThreadDigest(digest({ messageCount: 12, participantCount: 4 }), { format: "compact" });
    expect(r.blocks).toHaveLength(2);
    expect(allTexts([r.blocks[0]])[0]).toContain("12 messages, 4 participants");
  });

  it("says quietly when the sentiment is not rated yet, and escapes the title", () => {
    const r = renderCompactCard(digest({ sentiment: undefined, title: "<!here> & <@U1>" }));
    const line = allTexts([r.blocks[0]])[0] ?? "";
    expect(line).toContain("*&lt;!here&gt; &amp; &lt;@U1&gt;*");
    expect(line).toContain("sentiment not rated yet");
    expectNoLiveTokens(r.blocks);
  });
});

describe("replies under a card", () => {
  it("a burst is one reply: author, time and text of each, escaped", () => {
    const messages = Array.from({ length: 10 }, (_, i) => ({
      author: i === 0 ? "<!channel> Mallory" : `Member ${i}`,
      text: i === 0 ? "ping <@U123> <https://evil.example|docs>" : `message ${i}`,
      at: `2025-03-05T12:0${i}:00.000Z`,
    }));
    const r = renderCardReplies(messages);
    expect(r.text).toBe("10 new messages in this thread");
    expect(r.blocks).toHaveLength(10);
    const all = joined(r);
    expect(all).toContain("*&lt;!channel&gt; Mallory* · <!date^1741176000^{time}|2025-03-05 12:00 UTC>");
    expect(all).toContain("ping &lt;@U123&gt; &lt;https://evil.example|docs&gt;");
    expect(all).toContain("*Member 9*");
    expectNoLiveTokens(r.blocks);
    expectWithinLimits(r.blocks);
  });

  it("one message reads in the singular", () => {
    expect(renderCardReplies([{ author: "Ann", text: "hi", at: "" }]).text).toBe(
      "1 new message in this thread",
    );
  });
});
