import { describe, expect, it } from "vitest";
import type { Thread } from "../../../src/insight/schemas.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { decodeState, threadsStateSchema } from "../../../src/slack/button-values.js";
import { threadsCommand } from "../../../src/slack/commands/threads.js";
import { THREADS_PAGE_SIZE } from "../../../src/slack/render/thread-list.js";
import { dummyCommand, FakeInsight, fakeCommandsDeps } from "../../helpers/fakes.js";
import { allTexts } from "../render/walk.js";

const thread = (i: number): Thread => ({
  id: `thread-${i}`,
  title: `Retention question ${i}`,
  summary: `Summary ${i}`,
  sentiment: "neutral",
  messageCount: 3,
  lastMessageDate: "2025-03-05T10:00:00.000Z",
});

const insight = () =>
  new FakeInsight(
    [{ _id: "community-1", name: "Lumen DB" }],
    [
      {
        id: "group-support-01",
        name: "Lumen DB Support",
        community: "community-1",
        threads: Array.from({ length: 12 }, (_, i) => thread(i + 1)),
      },
      { id: "group-locked-01", name: "Locked Group", community: "community-1", fails: "forbidden" },
    ],
  );

/** The values of the buttons whose action id starts with `actionId`. */
function buttonValues(blocks: unknown, actionId: string): string[] {
  const out: string[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (typeof o.action_id === "string" && o.action_id.startsWith(actionId) && typeof o.value === "string")
        out.push(o.value);
      else Object.values(o).forEach(visit);
    }
  };
  visit(blocks);
  return out;
}

// `threads` with in-memory deps; the HTTP path and the paging buttons are in threads.test.ts.
describe("threads (unit, fake deps)", () => {
  it("lists the first page of the named group, with a Next button that carries the listing", async () => {
    const { deps } = fakeCommandsDeps({ insight: insight() });
    const { ctx, replies } = dummyCommand("last30Days group-support-01");
    await threadsCommand(deps).run(ctx);
    const r = replies[0];
    const text = [r?.text ?? "", ...allTexts(r?.blocks ?? [])].join("\n");
    expect(text).toContain("Retention question 1");
    expect(text).toContain(`Retention question ${THREADS_PAGE_SIZE}`);
    expect(text).not.toContain(`Retention question ${THREADS_PAGE_SIZE + 1}`);
    const paging = buttonValues(r?.blocks, ACTIONS.threadsPage).map((v) =>
      decodeState(threadsStateSchema, v),
    );
    expect(paging).toContainEqual({
      r: "last30Days",
      p: 2,
      i: 0,
      g: [["group-support-01", "Lumen DB Support"]],
    });
  });

  it("without a group, lists the channel's followed groups; with none, says how to start", async () => {
    const { deps, subscriptions } = fakeCommandsDeps({ insight: insight() });
    const none = dummyCommand("");
    await threadsCommand(deps).run(none.ctx);
    expect(none.replies[0]?.text).toContain("This channel follows no chat group.");
    await subscriptions.put({
      channelId: "C0UNIT",
      groupId: "group-support-01",
      groupName: "Lumen DB Support",
      communityId: "community-1",
      filters: {},
      createdBy: "U0ALICE",
      createdAt: "2025-01-01T00:00:00.000Z",
    });
    const some = dummyCommand("");
    await threadsCommand(deps).run(some.ctx);
    expect(allTexts(some.replies[0]?.blocks ?? []).join("\n")).toContain("Retention question 1");
  });

  it("a group the key cannot read is said plainly, and a word that looks like a range is refused", async () => {
    const { deps } = fakeCommandsDeps({ insight: insight() });
    const locked = dummyCommand("group-locked-01");
    await threadsCommand(deps).run(locked.ctx);
    expect(locked.replies[0]?.text).toContain("The API key cannot read");
    const bad = dummyCommand("last2Weeks group-support-01");
    await threadsCommand(deps).run(bad.ctx);
    expect(bad.replies[0]?.text).toContain("`last2Weeks` is not a range I know. Use `7d` (default), `30d`");
  });
});
