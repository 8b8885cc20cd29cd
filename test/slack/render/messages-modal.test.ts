import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/insight/schemas.js";
import { ACTIONS, MESSAGES_MODAL_CALLBACK } from "../../../src/slack/action-ids.js";
import { decodeState, threadRefSchema } from "../../../src/slack/button-values.js";
import {
  MESSAGES_PAGE_SIZE,
  renderMessagesLoading,
  renderMessagesModal,
} from "../../../src/slack/render/messages-modal.js";
import { buttons } from "../commands/helpers.js";
import { allTexts, expectNoLiveTokens } from "./walk.js";

const now = new Date("2026-03-06T12:00:00.000Z");
const msg = (i: number, over: Partial<Message> = {}): Message => ({
  id: `msg_${i}`,
  messageDate: `2026-03-05T0${i % 10}:1${i % 6}:00.000Z`,
  messageText: `Message ${i}: the replica is 5 minutes behind.`,
  isSystemMessage: false,
  isBotMessage: false,
  authorInfo: { id: `u${i}`, handle: `user${i}`, fullName: `Member ${i}` },
  reactions: [],
  chatThreadSummary: { id: "thr_1", title: "Replica lag after 4.2" },
  ...over,
});
const input = (messages: Message[], p = 1, totalPages = 2) => ({
  groupId: "grp_1",
  threadId: "thr_1",
  title: "from the button",
  page: p,
  result: {
    ok: true as const,
    messages,
    pagination: { page: p, limit: MESSAGES_PAGE_SIZE, total: 20, totalPages },
  },
  now,
});
const text = (v: Record<string, unknown>) => allTexts(v.blocks).join("\n");

describe("renderMessagesModal", () => {
  it("author, time, text, reactions, quoted text; system and bot messages marked", () => {
    const v = renderMessagesModal(
      input([
        msg(1, {
          reactions: [
            { emoji: "👍", count: 3 },
            { emoji: "tada", count: 2 },
            { emoji: ":eyes:", count: 1 },
          ],
        }),
        msg(2, {
          quotedMessageText: "Message 1: the replica\nis 5 minutes behind.",
          quotedMessageAuthor: "Member 1",
        }),
        msg(3, { isSystemMessage: true, messageText: "Member 3 joined the group" }),
        msg(4, { isBotMessage: true, authorInfo: { id: "b", handle: "lumen_bot", fullName: "Lumen Bot" } }),
        msg(5, { authorInfo: undefined, messageText: "" }),
      ]),
    );
    expect(v).toMatchSnapshot();
    expect(v.type).toBe("modal");
    expect(v.callback_id).toBe(MESSAGES_MODAL_CALLBACK);
    expect(JSON.parse(String(v.private_metadata))).toEqual({ g: "grp_1", t: "thr_1" });
    const t = text(v);
    expect(t).toContain("Replica lag after 4.2");
    expect(t).toContain("Page 1 of 2 · 20 messages · oldest first");
    expect(t).toContain(
      "*Member 1* · <!date^1772673060^{date_short_pretty} at {time}|2026-03-05 01:11 UTC>\nMessage 1: the replica is 5 minutes behind.",
    );
    expect(t).toContain("👍 3   :tada: 2   :eyes: 1");
    expect(t).toContain("> Message 1: the replica is 5 minutes behind. — Member 1");
    expect(t).toContain("_Member 3 joined the group_");
    expect(t).toContain("*Lumen Bot* (bot)");
    expect(t).toContain("*Unknown author*");
    expect(t).toContain("_(no text)_");
    const nav = buttons(v.blocks as unknown[]);
    expect(nav.map((b) => b.text.text)).toEqual(["Next ›"]);
    expect(decodeState(threadRefSchema, nav[0]?.value)).toEqual({
      g: "grp_1",
      t: "thr_1",
      n: "Replica lag after 4.2",
      p: 2,
    });
    expect(nav[0]?.action_id.startsWith(ACTIONS.messagesPage)).toBe(true);
  });

  it("a full page of huge hostile messages stays within modal limits", () => {
    const messages = Array.from({ length: MESSAGES_PAGE_SIZE }, (_, i) =>
      msg(i, {
        messageText: `<!channel> <@U1> ${"<a href>&".repeat(800)}`,
        quotedMessageText: "<!here>".repeat(200),
        quotedMessageAuthor: "<@U2>",
        reactions: Array.from({ length: 30 }, (_, k) => ({ emoji: `<!e${k}>`, count: k + 1 })),
        authorInfo: { id: "x", handle: "x", fullName: "<!subteam^S1|@team>" },
      }),
    );
    const v = renderMessagesModal(input(messages, 2, 3));
    const blocks = v.blocks as unknown[];
    expect(blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(36_000);
    expectNoLiveTokens(blocks);
    expect(buttons(blocks).map((b) => b.text.text)).toEqual(["‹ Previous", "Next ›"]);
    expect(String((v.title as { text: string }).text).length).toBeLessThanOrEqual(24);
  });

  it("loading and error views keep the title", () => {
    const loading = renderMessagesLoading({ groupId: "g", threadId: "t", title: "Replica lag" });
    expect(text(loading)).toContain("Replica lag");
    expect(text(loading)).toContain("Loading messages");
    const failed = renderMessagesModal({
      ...input([]),
      result: { ok: false, error: "The service did not answer." },
    });
    expect(text(failed)).toContain(":warning: The service did not answer.");
    expect(text(failed)).toContain("from the button");
    const empty = renderMessagesModal(input([], 1, 0));
    expect(text(empty)).toContain("The service lists no messages for this thread.");
  });
});
