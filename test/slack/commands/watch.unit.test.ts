import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { CommandRouter } from "../../../src/slack/commands/router.js";
import { watchCommand } from "../../../src/slack/commands/watch.js";
import { dummyCommand, FakeInsight, FIXED_NOW } from "../../helpers/fakes.js";
import { fakePersonalDeps } from "../../helpers/personal-fakes.js";
import { allTexts } from "../render/walk.js";

function rig(o: { limit?: number } = {}) {
  const personal = fakePersonalDeps({ timeZone: "Europe/Berlin" });
  if (o.limit !== undefined) Object.assign(personal.watches, { limit: o.limit });
  const insight = new FakeInsight(
    [{ _id: "community-1", name: "Lumen DB" }],
    [
      { id: "group-support-01", name: "Lumen DB Support", community: "community-1" },
      { id: "group-general-02", name: "Lumen DB General", community: "community-1" },
    ],
  );
  const cmd = watchCommand({
    ...personal.deps,
    insight,
    reportInsightError: async () => undefined,
    logger: silentLogger,
    now: () => FIXED_NOW,
  });
  const run = async (text: string, userId = "U0MAYA") => {
    const { ctx, replies } = dummyCommand(text, { userId });
    await cmd.run(ctx);
    return replies;
  };
  return { cmd, run, personal };
}

describe("/insight watch", () => {
  it("adds a watch, resolving the group as subscribe does, and confirms privately what it understood", async () => {
    const { run, personal } = rig();
    const [reply] = await run("refund failed --group support --sentiment negative --quiet 22:00-07:00");
    expect(reply?.text).toBe(
      [
        ":telescope: Watching: “refund failed” in Lumen DB Support · sentiment negative · quiet 22:00–07:00.",
        "A thread matches when every word is in its title, summary or keywords and it passes the filters.",
        "You get a DM when a thread first matches; later changes edit that DM instead of sending another. Between 22:00 and 07:00 (Europe/Berlin) they wait, and come gathered in one DM when your quiet hours end.",
        "This is watch 1 of 10: `/insight watch list` shows them, `/insight watch off 1` stops this one.",
      ].join("\n"),
    );
    expect(reply?.response_type).toBeUndefined(); // ephemeral, as every /insight reply
    expect(await personal.watches.list("U0MAYA")).toMatchObject([
      { words: ["refund", "failed"], group: { id: "group-support-01", name: "Lumen DB Support" } },
    ]);
  });

  it("an ambiguous or unknown group, bad options, or nothing to watch: a clear answer with an example, nothing stored", async () => {
    const { run, personal } = rig();
    expect((await run("refund --group lumen"))[0]?.text).toContain(
      '"lumen" matches several chat groups; name one by its id or full name:',
    );
    expect((await run("refund --quiet 22"))[0]?.text).toBe(
      [
        'I could not read that: --quiet takes two times, from and to, like --quiet 22:00-07:00 (I read "22").',
        "Understood so far: words “refund”.",
        "Example: `/insight watch refund failed --group Lumen DB Support --sentiment negative --quiet 22:00-07:00` (filters as for `subscribe`: see `/insight help`).",
      ].join("\n"),
    );
    expect((await run(""))[0]?.text).toContain(
      "I could not read that: Say what to watch for: some words, a group, or a filter.",
    );
    expect(await personal.watches.list("U0MAYA")).toEqual([]);
  });

  it("says so past the limit and for the same watch twice", async () => {
    const { run } = rig({ limit: 2 });
    await run("refund");
    expect((await run("Refund"))[0]?.text).toBe(
      "You already watch that: watch 1, “refund” in any group. Nothing changed.",
    );
    await run("chargeback");
    expect((await run("late fee"))[0]?.text).toBe(
      ":no_entry: You already have 2 watches, the most one person can keep (2). Stop one first: `/insight watch list`, then `/insight watch off &lt;number&gt;`.",
    );
  });

  it("lists, stops one by its number, stops all; another person's watches untouched", async () => {
    const { run, personal } = rig();
    await run("refund");
    await run("chargeback --daily 09:00");
    await run("arm64", "U0SAM");
    const [list] = await run("list");
    expect(list?.text).toBe("Your watches: 2 of 10");
    expect(allTexts(list?.blocks)).toContain("*2.* “chargeback” in any group · daily at 09:00");
    expect((await run("off 2"))[0]?.text).toBe(
      "Stopped watch 2: “chargeback” in any group · daily at 09:00.",
    );
    expect((await run("off 5"))[0]?.text).toBe(
      "You have no watch 5: you have 1 watch (see `/insight watch list`).",
    );
    expect((await run("off all"))[0]?.text).toBe("Stopped your only watch.");
    expect((await run("off all"))[0]?.text).toBe("You watch nothing, so there is nothing to stop.");
    await run("a");
    await run("b");
    expect((await run("off all"))[0]?.text).toBe("Stopped all 2 watches of yours.");
    expect((await personal.watches.list("U0SAM")).map((w) => w.words)).toEqual([["arm64"]]);
  });

  it("is open to everyone, even where only admins may change subscriptions", async () => {
    const { cmd } = rig();
    const router = new CommandRouter(
      { logger: silentLogger, adminUserIds: ["U0ADMIN"], reportInsightError: async () => undefined },
      [cmd],
    );
    const replies: string[] = [];
    await router.dispatch("watch refund", {
      userId: "U0MAYA",
      channelId: "C0UNIT",
      teamId: "T0UNIT",
      triggerId: undefined,
      respond: async (r) => {
        replies.push(r.text);
      },
    });
    expect(replies[0]).toMatch(/^:telescope: Watching: “refund” in any group\./);
  });
});
