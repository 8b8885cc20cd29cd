import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../../helpers/app-harness.js";
import { expectNoLiveTokens } from "../render/walk.js";
import { ask, shown } from "./helpers.js";

describe("/insight groups and /insight status", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(SEED.groups.support);
  });
  afterAll(async () => h?.stop());

  it("groups: every community with its readable chat groups and ids, direct-message groups left out", async () => {
    const r = await ask(h, "groups");
    const text = shown(r);
    for (const c of h.emulator.store.communities()) expect(text).toContain(`*${c.name}*`);
    for (const g of h.emulator.store.groups().filter((x) => !x.isDirectMessageGroup)) {
      expect(text).toContain(`(\`${g._id}\`)`);
    }
    expect(text).not.toContain(SEED.groups.dm);
    expect(text).toContain("Bike Workshop &amp; Gear");
    expect(text).toContain("6 groups in 3 communities");
    expectNoLiveTokens(r.blocks);
  });

  it("status: last delivery per type, queues, dead letters, spool, API, paused subscriptions", async () => {
    await h.emulator.createThread(SEED.groups.support, { title: "Status thread", sentiment: "neutral" });
    // The channel also holds the subscription's announcement: wait for the digest itself.
    await h.slack.waitFor(() => h.slack.messages(TEST_CHANNEL).find((m) => m.text.includes("Status thread")));
    await h.workspace.subscriptions.put({
      channelId: "C0GONE",
      groupId: SEED.groups.rides,
      groupName: "Saturday Rides",
      communityId: undefined,
      filters: {},
      createdBy: "U0ALICE",
      createdAt: new Date().toISOString(),
      paused: { code: "is_archived", at: new Date().toISOString() },
    });
    // ADMIN_USER_IDS is unset: operator detail goes to the workspace's own admins (users.info).
    h.slack.oauth.grant({ teamId: "T0STANDIN", adminIds: ["U0ALICE"] });
    const r = await ask(h, "status");
    const text = shown(r);
    expect(text).toMatch(
      /`chatthread-crud`: last <!date\^\d+\^\{date_short_pretty\} at \{time\}\|\d{4}-\d\d-\d\d \d\d:\d\d UTC> \(\d+ s ago\) · 1 received/,
    );
    expect(text).toContain("`chatmessage-crud`: never · 0 received");
    expect(text).toContain("Thread updates arrive normally");
    expect(text).toMatch(/`deliveries`: \d+ waiting · \d+ active · \d+ delayed · 0 failed/);
    expect(text).toContain("`slack-out`:");
    expect(text).toContain("*Dead letters:* none");
    expect(text).toContain("*Spool:* 0 webhook calls waiting on disk");
    expect(text).toMatch(/\*Insight API:\* reachable, key accepted \(\d+ ms, 3 communities readable\)/);
    expect(text).toContain(
      "*Saturday Rides* in <#C0GONE> — That channel is archived: unarchive it, or subscribe another channel. (`is_archived`)",
    );
    expect(r.text).toBe("Insight Relay status: 1 problem");

    // Someone who is not an admin: the same facts in plain words, no queue names or codes.
    const plain = shown(await ask(h, "status", { user: "U0MEMBER" }));
    expect(plain).toContain(
      "*Saturday Rides* in <#C0GONE> — That channel is archived: unarchive it, or subscribe another channel.",
    );
    for (const internal of ["`deliveries`", "`slack-out`", "is_archived", "chatthread-crud"]) {
      expect(plain).not.toContain(internal);
    }
  });
});
