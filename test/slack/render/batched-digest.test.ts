import { describe, expect, it } from "vitest";
import { entryVersion, groupBatch, type PendingEntry } from "../../../src/domain/digest-batch.js";
import type { ThreadDigest } from "../../../src/domain/thread-digest.js";
import { sentimentLabel } from "../../../src/domain/sentiment.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { renderBatchedDigest } from "../../../src/slack/render/batched-digest.js";
import { LIMITS } from "../../../src/slack/render/limits.js";

const digest = (i: number, o: Partial<ThreadDigest> = {}): ThreadDigest => ({
  threadId: `t${i}`,
  groupId: "g1",
  groupName: "Support",
  communityId: "c1",
  title: `Thread ${i}`,
  summary: "s",
  sentiment: "negative",
  keywords: [],
  messageCount: 12,
  participantCount: 1,
  isQuestionLed: true,
  questionResponseStatus: "unanswered",
  firstMessageDate: undefined,
  lastMessageDate: undefined,
  enrichedAt: "2026-11-20T10:00:00.000Z",
  action: "created",
  ...o,
});
const entry = (i: number, o: Partial<ThreadDigest> = {}, isNew = true): PendingEntry => ({
  digest: digest(i, o),
  version: entryVersion(1_000 + i, true),
  isNew,
  firstSeenMs: Date.UTC(2026, 10, 20, 9),
});
const names = new Map([["g1", "Support & <Ops>"]]);

describe("renderBatchedDigest", () => {
  it("compact lines with sentiment, question status, counts and a View button, grouped, escaped", () => {
    const { text, blocks } = renderBatchedDigest({
      batch: groupBatch([
        entry(1, { title: "<!channel> outage" }),
        entry(2, { sentiment: undefined, isQuestionLed: false }, false),
        entry(3, { questionResponseStatus: "answered" }, false),
      ]),
      groupNames: names,
      sinceMs: Date.UTC(2026, 10, 20, 9),
    });
    // What readers see: button values (the messages modal's state) are not shown.
    const json = JSON.stringify(blocks, (k, v: unknown) => (k === "value" ? undefined : v));
    expect(text).toBe(
      "Digest: 3 threads (1 new, 1 changed, 1 answered in the chat) in Support &amp; &lt;Ops&gt;",
    );
    expect(json).toContain("*New threads (1)*");
    expect(json).toContain("*Changed threads (1)*");
    expect(json).toContain("*Answered in the chat (1)*");
    expect(json).toContain("&lt;!channel&gt; outage");
    expect(json).not.toContain("<!channel>");
    expect(json).toContain(
      ":red_circle: *&lt;!channel&gt; outage*\\nNegative · :question: unanswered · 12 messages · 1 participant",
    );
    expect(json).toContain(`${sentimentLabel(undefined).emoji} sentiment not rated yet · 12 messages`);
    expect(json).toContain("<!date^1795165200^");
    expect(json.match(new RegExp(`"action_id":"${ACTIONS.viewMessages}"`, "g"))).toHaveLength(3);
    expect(blocks).toMatchSnapshot();
  });

  it("200 threads: within 50 blocks and the JSON budget, with an 'and N more threads' line", () => {
    const entries = Array.from({ length: 200 }, (_, i) => entry(i, { title: "x".repeat(300) }));
    const { blocks } = renderBatchedDigest({ batch: groupBatch(entries), groupNames: names, sinceMs: 0 });
    expect(blocks.length).toBeLessThanOrEqual(LIMITS.blocksPerMessage);
    expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(LIMITS.messageBlocksJson);
    const shown = blocks.filter((b) => b.type === "section" && "accessory" in b).length;
    const last = JSON.stringify(blocks.at(-1));
    expect(last).toContain(`and ${200 - shown} more threads`);
  });
});
