import { describe, expect, it } from "vitest";
import type { PendingEntry } from "../../../src/domain/digest-batch.js";
import type { Subscription } from "../../../src/domain/subscription.js";
import { digestCommand } from "../../../src/slack/commands/digest.js";
import { dummyCommand } from "../../helpers/fakes.js";

const sub = (over: Partial<Subscription> = {}): Subscription => ({
  channelId: "C0UNIT",
  groupId: "group-support-01",
  groupName: "Lumen DB Support",
  communityId: "community-1",
  filters: {},
  createdBy: "U0ALICE",
  createdAt: "2025-01-01T00:00:00.000Z",
  ...over,
});

// `digest now` with a dummy of its narrow deps; the flush itself is in test/digest/digest.e2e.test.ts.
function deps(subs: Subscription[], pending: PendingEntry[] = []) {
  const flushed: string[] = [];
  return {
    flushed,
    deps: {
      subscriptions: { forChannel: async () => subs },
      pending: { list: async () => pending },
      flushNow: async (channelId: string, by: string) => {
        flushed.push(`${channelId} ${by}`);
      },
    },
  };
}

describe("digest now (unit, fake deps)", () => {
  it("without a digest subscription, says how to get one, with <group> escaped for Slack", async () => {
    const { deps: d, flushed } = deps([sub()]);
    const { ctx, replies } = dummyCommand("now");
    await digestCommand(d).run(ctx);
    expect(replies[0]?.text).toContain("`/insight subscribe &lt;group&gt; --mode digest --every 4h`");
    expect(replies[0]?.text).not.toContain("<group>");
    expect(flushed).toEqual([]);
  });

  it("with nothing pending, says so and posts nothing", async () => {
    const { deps: d, flushed } = deps([sub({ delivery: { mode: "digest" } })]);
    const { ctx, replies } = dummyCommand("now");
    await digestCommand(d).run(ctx);
    expect(replies[0]?.text).toBe(
      "Nothing is pending: no new or changed thread of *Lumen DB Support* since the last digest.",
    );
    expect(flushed).toEqual([]);
  });
});
