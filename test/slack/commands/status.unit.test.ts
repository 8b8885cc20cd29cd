import { describe, expect, it } from "vitest";
import { InsightError } from "../../../src/insight/errors.js";
import { statusCommand } from "../../../src/slack/commands/status.js";
import { dummyCommand, FakeInsight, fakeCommandsDeps, fakeQueue, FIXED_NOW } from "../../helpers/fakes.js";
import { allTexts } from "../render/walk.js";

// `status` with in-memory deps; gather-status.test.ts reads real Redis and the emulator.
describe("status (unit, fake deps)", () => {
  it("reports deliveries, queues, the API and paused subscriptions from what its deps say", async () => {
    const { deps, subscriptions } = fakeCommandsDeps({
      health: {
        lastDeliveries: async () => ({
          "chatthread-crud": new Date(FIXED_NOW.getTime() - 60_000).toISOString(),
        }),
        lastThreadDeliveries: async () => ({}),
        deliveryCounts: async () => ({ "chatthread-crud": 12 }),
        deadLetterCounts: async () => ({ total: 0, kept: 0, byReason: {} }),
      },
      queues: () => [fakeQueue("deliveries", { waiting: 3 }), fakeQueue("slack-out", { failed: 1 })],
    });
    await subscriptions.put({
      channelId: "C0GONE",
      groupId: "group-support-01",
      groupName: "Lumen DB Support",
      communityId: "community-1",
      filters: {},
      createdBy: "U0ALICE",
      createdAt: "2025-01-01T00:00:00.000Z",
      paused: { code: "is_archived", at: "2025-03-01T00:00:00.000Z" },
    });
    const { ctx, replies } = dummyCommand("");
    await statusCommand(deps).run(ctx);
    const text = allTexts(replies[0]?.blocks ?? []).join("\n");
    expect(text).toContain("`deliveries`: 3 waiting · 0 active · 0 delayed · 0 failed · 1 worker");
    expect(text).toContain("`slack-out`: 0 waiting · 0 active · 0 delayed · 1 failed :warning:");
    expect(text).toContain("Lumen DB Support");
    expect(text).toContain("is_archived");
    expect(text).not.toContain("rejected");
  });

  it("a rejected API key is shown and reported to operators", async () => {
    const insight = new FakeInsight([], []);
    insight.listCommunities = async () => {
      throw new InsightError("unauthorized", "401", { status: 401 });
    };
    const { deps, reported } = fakeCommandsDeps({ insight });
    const { ctx, replies } = dummyCommand("");
    await statusCommand(deps).run(ctx);
    expect(
      allTexts(replies[0]?.blocks ?? [])
        .join("\n")
        .toLowerCase(),
    ).toContain("api key");
    expect(reported).toHaveLength(1);
  });
});
