import { UnrecoverableError } from "bullmq";
import { describe, expect, it } from "vitest";
import { refusedBySlack } from "../../../src/jobs/refused-by-slack.js";
import { silentLogger } from "../../../src/log.js";
import { classifyCode } from "../../../src/slack/errors.js";
import { FakeOps, FakeSubscriptions } from "../../helpers/fakes.js";
import type { Subscription } from "../../../src/store/subscriptions.js";

const sub = (channelId: string, groupId: string): Subscription =>
  ({
    channelId,
    groupId,
    groupName: groupId,
    createdBy: "U1",
    createdAt: "2026-01-01T00:00:00Z",
  }) as Subscription;

async function refused(what: Parameters<typeof refusedBySlack>[1]["what"], code: string, channel = "C0GONE") {
  const subscriptions = new FakeSubscriptions();
  await subscriptions.put(sub(channel, "g1"));
  await subscriptions.put(sub(channel, "g2"));
  await subscriptions.put(sub("C0OTHER", "g1"));
  const ops = new FakeOps();
  const deps = { subscriptions, ops, logger: silentLogger, now: () => Date.parse("2026-11-27T10:00:00Z") };
  const err = await refusedBySlack(deps, { channel, refusal: classifyCode(code), what }).catch(
    (e: unknown) => e,
  );
  return { err, subscriptions, ops };
}

describe("refusedBySlack: the one answer to Slack refusing a post for good", () => {
  for (const what of ["digest", "batched digest", "weekly summary", "alert", "card", "replies"] as const) {
    it(`a channel that is gone, refusing ${what}: its subscriptions pause, operators are told once, the job fails for good`, async () => {
      const { err, subscriptions, ops } = await refused(what, "is_archived");
      expect(err).toBeInstanceOf(UnrecoverableError);
      expect((err as Error).message).toContain("is_archived");
      expect((await subscriptions.get("C0GONE", "g1"))?.paused?.code).toBe("is_archived");
      expect((await subscriptions.get("C0GONE", "g2"))?.paused?.code).toBe("is_archived");
      expect((await subscriptions.get("C0OTHER", "g1"))?.paused).toBeUndefined();
      expect([...ops.incidents.keys()]).toEqual(["channel-C0GONE-is_archived"]);
      const text = ops.incidents.get("channel-C0GONE-is_archived")?.text ?? "";
      expect(text).toContain("Posts to <#C0GONE> are paused (2 subscriptions)");
      expect(text).toContain("That channel is archived: unarchive it, or subscribe another channel.");
      expect(text).toContain("Then run `/insight subscribe` in that channel to resume.");
    });
  }

  it("a token or scope problem pauses nothing and is told once per kind and code", async () => {
    const { err, subscriptions, ops } = await refused("weekly chart", "missing_scope");
    expect(err).toBeInstanceOf(UnrecoverableError);
    expect((await subscriptions.get("C0GONE", "g1"))?.paused).toBeUndefined();
    expect([...ops.incidents.keys()]).toEqual(["slack-weekly-chart-missing_scope"]);
    expect(ops.incidents.get("slack-weekly-chart-missing_scope")?.text).toBe(
      ":warning: Slack refused the weekly chart (the summary went out without it) for <#C0GONE> with `missing_scope`: " +
        "The app lacks a permission this needs: add the scope in the app settings and reinstall it.",
    );
  });

  it("a DM or an operators' notice pauses nothing and raises no alert (a refused notice must not raise another)", async () => {
    for (const what of ["dm", "notice"] as const) {
      const { err, subscriptions, ops } = await refused(what, "channel_not_found");
      expect(err).toBeInstanceOf(UnrecoverableError);
      expect((await subscriptions.get("C0GONE", "g1"))?.paused).toBeUndefined();
      expect(ops.incidents.size).toBe(0);
    }
  });
});
