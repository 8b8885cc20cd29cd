import { describe, expect, it } from "vitest";
import { InsightError } from "../../../src/insight/errors.js";
import type { SearchResults } from "../../../src/insight/schemas.js";
import { ACTIONS } from "../../../src/slack/action-ids.js";
import { searchCommand } from "../../../src/slack/commands/search.js";
import { dummyCommand, FakeInsight, fakeCommandsDeps } from "../../helpers/fakes.js";
import { allTexts } from "../render/walk.js";

const hits = (title: string, score: number): SearchResults => ({
  threads: [{ kind: "thread", id: `t-${title}`, title, summary: "A summary.", score, raw: {} }],
  messages: [],
});

const insight = () =>
  new FakeInsight(
    [{ _id: "community-1", name: "Lumen DB" }],
    [
      { id: "group-a-0001", name: "Group A", community: "community-1", search: hits("Retention in A", 0.4) },
      { id: "group-b-0001", name: "Group B", community: "community-1", search: hits("Retention in B", 0.9) },
      { id: "group-down-01", name: "Group Down", community: "community-1", fails: "server_error" },
    ],
  );

const follow = (channelId: string, groupId: string, groupName: string) => ({
  channelId,
  groupId,
  groupName,
  communityId: "community-1",
  filters: {},
  createdBy: "U0ALICE",
  createdAt: "2025-01-01T00:00:00.000Z",
});

// `search` with in-memory deps; the HTTP path and the Share button are in search.test.ts.
describe("search (unit, fake deps)", () => {
  it("searches every followed group and shows the best hits first, each with a Share button", async () => {
    const { deps, subscriptions } = fakeCommandsDeps({ insight: insight() });
    await subscriptions.put(follow("C0UNIT", "group-a-0001", "Group A"));
    await subscriptions.put(follow("C0UNIT", "group-b-0001", "Group B"));
    const { ctx, replies } = dummyCommand("retention");
    await searchCommand(deps).run(ctx);
    const text = allTexts(replies[0]?.blocks ?? []).join("\n");
    expect(text).toContain("Retention in B");
    expect(text.indexOf("Retention in B")).toBeLessThan(text.indexOf("Retention in A"));
    expect(JSON.stringify(replies[0]?.blocks)).toContain(ACTIONS.share);
  });

  it("a failing group is named among the results; when every group fails, only the reason is said", async () => {
    const { deps, subscriptions, reported } = fakeCommandsDeps({ insight: insight() });
    await subscriptions.put(follow("C0UNIT", "group-a-0001", "Group A"));
    await subscriptions.put(follow("C0UNIT", "group-down-01", "Group Down"));
    const partly = dummyCommand("retention");
    await searchCommand(deps).run(partly.ctx);
    const text = allTexts(partly.replies[0]?.blocks ?? []).join("\n");
    expect(text).toContain("Retention in A");
    expect(text).toContain("Group Down");
    const only = dummyCommand("retention --group group-down-01");
    await searchCommand(deps).run(only.ctx);
    expect(only.replies[0]?.text).toContain("The Insight Service did not answer properly");
    expect(reported.some((e) => e instanceof InsightError && e.code === "server_error")).toBe(true);
  });

  it("no text, and no followed group, are answered with how to search", async () => {
    const { deps } = fakeCommandsDeps({ insight: insight() });
    const empty = dummyCommand("--group group-a-0001");
    await searchCommand(deps).run(empty.ctx);
    expect(empty.replies[0]?.text).toContain("Say what to look for.");
    const nothing = dummyCommand("retention");
    await searchCommand(deps).run(nothing.ctx);
    expect(nothing.replies[0]?.text).toContain("This channel follows no chat group");
  });
});
