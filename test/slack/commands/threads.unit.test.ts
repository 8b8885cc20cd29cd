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
    expect(bad.replies[0]?.text).toBe(
      '`last2Weeks` is not a range I know. I read the group as "group-support-01". Use `7d` (default), `30d`, `3m`, `6m`, `all`, or words such as `last 30 days`, for example `/insight threads 30d group-support-01`.',
    );
  });
});

describe("threads with ranges and filters (unit, fake deps)", () => {
  const mixed = (): Thread[] =>
    Array.from({ length: 30 }, (_, i) => ({
      id: `t-${i}`,
      title: i % 3 === 0 ? `Refund failed ${i}` : `Café opening ${i}`,
      summary: i % 5 === 0 ? "Giveaway spam" : `Summary ${i}`,
      sentiment: i % 2 === 0 ? "negative" : "positive",
      messageCount: 2 + (i % 4),
    }));
  const deps = () =>
    fakeCommandsDeps({
      insight: new FakeInsight(
        [{ _id: "community-1", name: "Lumen DB" }],
        [{ id: "group-support-01", name: "Lumen DB Support", community: "community-1", threads: mixed() }],
      ),
    }).deps;

  it("`last 30 days` and `30d` are ranges, not group names", async () => {
    for (const text of [
      "last 30 days group-support-01",
      "group-support-01 30d",
      "last30Days group-support-01",
    ]) {
      const { ctx, replies } = dummyCommand(text);
      await threadsCommand(deps()).run(ctx);
      const t = allTexts(replies[0]?.blocks ?? []).join("\n");
      expect(t, text).toContain("*Threads in Lumen DB Support* — the last 30 days");
    }
  });

  it("applies the filters of subscribe, exclusions winning, and counts only what matches", async () => {
    const { ctx, replies } = dummyCommand(
      "7d Lumen DB Support --sentiment negative --keywords cafe,refund --exclude-keywords giveaway",
    );
    await threadsCommand(deps()).run(ctx);
    const t = allTexts(replies[0]?.blocks ?? []).join("\n");
    // Even ids are negative; multiples of 5 say "Giveaway": 0, 10, 20 are excluded; 12 remain.
    const want = mixed().filter((x, i) => i % 2 === 0 && i % 5 !== 0);
    expect(want).toHaveLength(12);
    expect(t).toContain("Filtered: sentiment negative · keywords cafe or refund · never mentioning giveaway");
    expect(t).toContain("page 1 of 2 · 12 matching threads");
    for (const w of want.slice(0, THREADS_PAGE_SIZE)) expect(t).toContain(`*${w.title}*`);
    expect(t).not.toContain("Giveaway");
    // The Next button carries the filters, so page 2 is about the same matching set.
    const next = decodeState(
      threadsStateSchema,
      buttonValues(replies[0]?.blocks, `${ACTIONS.threadsPage}.next`)[0],
    );
    expect(next?.f).toEqual({
      sentiments: ["negative"],
      keywords: ["cafe", "refund"],
      excludeKeywords: ["giveaway"],
    });
    expect(next?.p).toBe(2);
  });

  it("a delivery option or a bad filter is refused with what was understood and an example", async () => {
    const { ctx, replies } = dummyCommand("30d group-support-01 --sentiment negative --mode digest");
    await threadsCommand(deps()).run(ctx);
    expect(replies[0]?.text).toContain("--mode is a subscription setting");
    expect(replies[0]?.text).toContain("Understood so far: sentiment negative.");
    expect(replies[0]?.text).toContain(
      "Example: `/insight threads 30d Lumen DB Support --sentiment negative --unanswered`",
    );
  });
});
