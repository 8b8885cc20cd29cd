import { describe, expect, it } from "vitest";
import { InsightError } from "../../../src/insight/errors.js";
import { statusCommand } from "../../../src/slack/commands/status.js";
import { dummyCommand, FakeInsight, fakeCommandsDeps, fakeQueue, FIXED_NOW } from "../../helpers/fakes.js";
import { allTexts } from "../render/walk.js";

// `status` with in-memory deps; gather-status.test.ts reads real Redis and the emulator.
describe("status (unit, fake deps)", () => {
  it("reports deliveries, queues, the API and paused subscriptions from what its deps say", async () => {
    const { deps, subscriptions, slack } = fakeCommandsDeps({
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
    // ADMIN_USER_IDS unset: operator detail for the workspace's own admins (users.info) only.
    slack.admins.add("U0ADMIN");
    const admin = dummyCommand("", { userId: "U0ADMIN" });
    await statusCommand(deps).run(admin.ctx);
    const text = allTexts(admin.replies[0]?.blocks ?? []).join("\n");
    expect(text).toContain("`deliveries`: 3 waiting · 0 active · 0 delayed · 0 failed · 1 worker");
    expect(text).toContain("`slack-out`: 0 waiting · 0 active · 0 delayed · 1 failed :warning:");
    expect(text).toContain("Lumen DB Support");
    expect(text).toContain("is_archived");
    expect(text).not.toContain("rejected");

    // Anyone else: the same facts in plain words.
    const member = dummyCommand("", { userId: "U0MEMBER" });
    await statusCommand(deps).run(member.ctx);
    const plain = allTexts(member.replies[0]?.blocks ?? []).join("\n");
    expect(plain).toContain(
      ":warning: 3 tasks waiting or running; 1 task failed (the app's admins can see which).",
    );
    expect(plain).toContain(
      "• *Lumen DB Support* in <#C0GONE> — That channel is archived: unarchive it, or subscribe another channel.",
    );
    for (const internal of ["`deliveries`", "slack-out", "is_archived"])
      expect(plain).not.toContain(internal);
    expect(slack.calls.filter((c) => c.method === "users.info").map((c) => c.args.user)).toEqual([
      "U0ADMIN",
      "U0MEMBER",
    ]);
  });

  it("with ADMIN_USER_IDS set, only those see operator detail, without asking Slack", async () => {
    const { deps, slack } = fakeCommandsDeps({
      adminUserIds: ["U0OPS"],
      queues: () => [fakeQueue("slack-out", { waiting: 1 })],
    });
    slack.admins.add("U0WSADMIN");
    const ops = dummyCommand("", { userId: "U0OPS" });
    await statusCommand(deps).run(ops.ctx);
    expect(allTexts(ops.replies[0]?.blocks ?? []).join("\n")).toContain("`slack-out`: 1 waiting");
    const wsAdmin = dummyCommand("", { userId: "U0WSADMIN" });
    await statusCommand(deps).run(wsAdmin.ctx);
    expect(allTexts(wsAdmin.replies[0]?.blocks ?? []).join("\n")).toContain(
      ":heavy_check_mark: 1 task waiting or running.",
    );
    expect(slack.calls.some((c) => c.method === "users.info")).toBe(false);
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
