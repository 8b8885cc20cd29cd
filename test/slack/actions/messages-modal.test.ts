import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import type { RecordedCall } from "../../../dev/slack-standin/server.js";
import { ACTIONS, MESSAGES_MODAL_CALLBACK } from "../../../src/slack/action-ids.js";
import { encodeThreadRef } from "../../../src/slack/button-values.js";
import { MESSAGES_PAGE_SIZE } from "../../../src/slack/render/messages-modal.js";
import { startHarness, type Harness } from "../../helpers/app-harness.js";
import { allTexts, expectNoLiveTokens } from "../render/walk.js";
import { ask, button, buttons, click } from "../commands/helpers.js";

const GROUP = SEED.groups.support;

type View = { type: string; callback_id?: string; title?: { text: string }; blocks?: unknown[] };
const viewOf = (c: RecordedCall | undefined) => c?.args.view as View | undefined;
const textOf = (v: View | undefined) => allTexts(v?.blocks ?? []).join("\n");

describe("View messages: a modal with the thread's messages, paginated", () => {
  let h: Harness;
  let threadId: string;
  const TITLE = "Modal test: compaction stalls on large shards";
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(GROUP);
    const thread = h.emulator.store.addThread(GROUP, {
      title: TITLE,
      summary: "Compaction stalls.",
      sentiment: "negative",
    });
    threadId = thread.id;
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < MESSAGES_PAGE_SIZE + 5; i++) {
      h.emulator.store.addMessage(GROUP, threadId, {
        messageDate: new Date(base + i * 60_000).toISOString(),
        messageText:
          i === 1
            ? "Same here <!channel> — see <https://evil.example|docs>"
            : `Message number ${i + 1} about compaction`,
        authorInfo: {
          id: `m${i % 3}`,
          handle: `member${i % 3}`,
          fullName: ["Maya Chen", "Jonas Berg", "Priya Nair"][i % 3] ?? "x",
        },
        reactions:
          i === 0
            ? [
                { emoji: "👍", count: 3 },
                { emoji: "tada", count: 1 },
              ]
            : [],
        ...(i === 2
          ? { quotedMessageText: "Message number 1 about compaction", quotedMessageAuthor: "Maya Chen" }
          : {}),
      });
    }
  });
  afterAll(async () => h?.stop());

  it("opens at once, then fills in author, time, text, reactions and quoted text; Next updates the same view", async () => {
    const list = await ask(h, "threads");
    const view = buttons(list.blocks).find(
      (b) => b.action_id === ACTIONS.viewMessages && b.value.includes(threadId),
    );
    expect(view?.text.text).toBe("View messages");
    if (!view) return;
    const res = await click(h, view);
    expect(res.status).toBe(200);

    const opened = await h.slack.waitFor(() => h.slack.calls.find((c) => c.method === "views.open" && c.ok));
    expect(opened.args.trigger_id).toBeTruthy();
    expect(viewOf(opened)?.callback_id).toBe(MESSAGES_MODAL_CALLBACK);
    expect(textOf(viewOf(opened))).toContain("Loading messages");
    const filled = await h.slack.waitFor(() =>
      h.slack.calls.find((c) => c.method === "views.update" && c.ok),
    );
    const page1 = textOf(viewOf(filled));
    expect(page1).toContain(TITLE);
    expect(page1).toContain(`Page 1 of 2 · ${MESSAGES_PAGE_SIZE + 5} messages`);
    expect(page1).toMatch(
      /\*Maya Chen\* · <!date\^\d+\^\{date_short_pretty\} at \{time\}\|\d{4}-\d\d-\d\d \d\d:\d\d UTC>/,
    );
    expect(page1).toContain("Message number 1 about compaction");
    expect(page1).toContain("👍 3");
    expect(page1).toContain(":tada: 1");
    expect(page1).toContain("> Message number 1 about compaction — Maya Chen");
    expect(page1).toContain("Same here &lt;!channel&gt;");
    expect(page1).not.toContain(`Message number ${MESSAGES_PAGE_SIZE + 1} about`);
    expectNoLiveTokens(viewOf(filled)?.blocks);
    expect((viewOf(filled)?.blocks ?? []).length).toBeLessThanOrEqual(100);

    const viewId = filled.args.view_id;
    expect(typeof viewId).toBe("string");
    const next = button(viewOf(filled)?.blocks, ACTIONS.messagesPage, "Next");
    const updatesBefore = h.slack.calls.filter((c) => c.method === "views.update").length;
    const turned = await click(h, next, {
      container: { type: "view", view_id: viewId },
      view: {
        id: viewId,
        type: "modal",
        callback_id: MESSAGES_MODAL_CALLBACK,
        hash: "h1",
        private_metadata: "",
      },
    });
    expect(turned.status).toBe(200);
    const page2Call = await h.slack.waitFor(
      () => h.slack.calls.filter((c) => c.method === "views.update" && c.ok)[updatesBefore],
    );
    expect(page2Call.args.view_id).toBe(viewId);
    const page2 = textOf(viewOf(page2Call));
    expect(page2).toContain("Page 2 of 2");
    expect(page2).toContain(`Message number ${MESSAGES_PAGE_SIZE + 5} about compaction`);
    expect(buttons(viewOf(page2Call)?.blocks).some((b) => b.text.text.includes("Previous"))).toBe(true);
    expect(buttons(viewOf(page2Call)?.blocks).some((b) => b.text.text.includes("Next"))).toBe(false);
  });

  it("a failing listing shows the reason in the modal", async () => {
    h.emulator.faults.set({ serverError: { count: 20, status: 503 }, path: /displaychatmessage/ });
    const updates = h.slack.calls.filter((c) => c.method === "views.update").length;
    try {
      await click(h, {
        action_id: ACTIONS.viewMessages,
        value: encodeThreadRef({ g: GROUP, t: threadId, n: TITLE }),
        text: { text: "View messages" },
      });
      const failed = await h.slack.waitFor(
        () => h.slack.calls.filter((c) => c.method === "views.update" && c.ok)[updates],
      );
      expect(textOf(viewOf(failed))).toContain("The Insight Service did not answer properly");
      expect(textOf(viewOf(failed))).toContain(TITLE);
    } finally {
      h.emulator.faults.clear();
    }
  });
});
