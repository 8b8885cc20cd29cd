import { describe, expect, it } from "vitest";
import { channelIncident } from "../../../src/ops/ops-notifier.js";
import { subscribeCommand } from "../../../src/slack/commands/subscribe.js";
import { dummyCommand, fakeCommandsDeps, FIXED_NOW } from "../../helpers/fakes.js";

// `subscribe` with in-memory deps: no Redis, no emulator, no Slack. The HTTP path is in subscriptions.test.ts.
describe("subscribe (unit, fake deps)", () => {
  it("records the subscription with its filters, and says so", async () => {
    const { deps, subscriptions } = fakeCommandsDeps();
    const { ctx, replies } = dummyCommand("group-support-01 --sentiment negative,mixed --questions");
    await subscribeCommand(deps).run(ctx);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.text).toContain(
      "Subscribed: this channel gets digests of *Lumen DB Support* (`group-support-01`), filtered:",
    );
    const sub = await subscriptions.get("C0UNIT", "group-support-01");
    expect(sub).toMatchObject({
      groupName: "Lumen DB Support",
      communityId: "community-1",
      filters: { sentiments: ["negative", "mixed"], questions: true },
      createdBy: "U0ALICE",
      createdAt: FIXED_NOW.toISOString(),
    });
  });

  it("finds a group by a unique part of its name, case-insensitively", async () => {
    const { deps, subscriptions } = fakeCommandsDeps();
    const { ctx, replies } = dummyCommand("db SUPPORT");
    await subscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toContain("*Lumen DB Support*");
    expect((await subscriptions.forChannel("C0UNIT")).map((s) => s.groupId)).toEqual(["group-support-01"]);
  });

  it("resumes a paused subscription and closes its incident", async () => {
    const { deps, subscriptions, ops } = fakeCommandsDeps();
    await subscriptions.put({
      channelId: "C0UNIT",
      groupId: "group-support-01",
      groupName: "Lumen DB Support",
      communityId: "community-1",
      filters: {},
      createdBy: "U0BOB",
      createdAt: "2025-01-01T00:00:00.000Z",
      paused: { code: "is_archived", at: "2025-02-01T00:00:00.000Z" },
    });
    const { ctx, replies } = dummyCommand("group-support-01");
    await subscribeCommand(deps).run(ctx);
    expect(replies[0]?.text).toMatch(/^Resumed: /);
    const sub = await subscriptions.get("C0UNIT", "group-support-01");
    expect(sub?.paused).toBeUndefined();
    expect(sub?.createdAt).toBe("2025-01-01T00:00:00.000Z");
    expect(ops.resolved).toEqual([channelIncident("C0UNIT", "is_archived")]);
  });

  it("an unknown group and a bad filter are refused without storing anything", async () => {
    const { deps, subscriptions } = fakeCommandsDeps();
    const unknown = dummyCommand("no-such-group-here");
    await subscribeCommand(deps).run(unknown.ctx);
    expect(unknown.replies[0]?.text).toContain('No chat group named "no-such-group-here"');
    const bad = dummyCommand("group-support-01 --min-messages lots");
    await subscribeCommand(deps).run(bad.ctx);
    expect(bad.replies[0]?.text).toContain("--min-messages");
    expect(subscriptions.rows.size).toBe(0);
  });
});
