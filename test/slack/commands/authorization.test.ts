import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../../helpers/app-harness.js";
import { ask, shown } from "./helpers.js";

const ADMIN = "U0ADMIN";
const MEMBER = "U0MEMBER";

describe("authorization with ADMIN_USER_IDS set", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { ADMIN_USER_IDS: `${ADMIN},U0OTHERADMIN` } });
  });
  afterAll(async () => h?.stop());

  it("only admins change subscriptions; others get a clear refusal and nothing changes", async () => {
    const refused = await ask(h, `subscribe ${SEED.groups.support}`, { user: MEMBER });
    expect(refused.text).toContain("Only the app's admins can use `/insight subscribe`");
    expect(await h.workspace.subscriptions.get(TEST_CHANNEL, SEED.groups.support)).toBeUndefined();

    const done = await ask(h, `subscribe ${SEED.groups.support}`, { user: ADMIN });
    expect(done.text).toContain("Subscribed");
    expect(await h.workspace.subscriptions.get(TEST_CHANNEL, SEED.groups.support)).toBeDefined();

    const notRemoved = await ask(h, `unsubscribe ${SEED.groups.support}`, { user: MEMBER });
    expect(notRemoved.text).toContain("Only the app's admins can use `/insight unsubscribe`");
    expect(await h.workspace.subscriptions.get(TEST_CHANNEL, SEED.groups.support)).toBeDefined();
  });

  it("reading commands stay open to everyone", async () => {
    await h.workspace.subscriptions.put({
      channelId: "C0READ",
      groupId: SEED.groups.support,
      groupName: "Lumen DB Support",
      communityId: undefined,
      filters: {},
      createdBy: ADMIN,
      createdAt: new Date().toISOString(),
    });
    const o = { user: MEMBER, channel: "C0READ" };
    expect(shown(await ask(h, "threads", o))).toContain("Threads in Lumen DB Support");
    expect(shown(await ask(h, "search retention", o))).toContain("*Search:*");
    expect(shown(await ask(h, "groups", o))).toContain("Chat groups the app can read");
    expect(shown(await ask(h, "status", o))).toContain("Insight Relay status");
    expect(shown(await ask(h, "list", o))).toContain("Lumen DB Support");
    expect(shown(await ask(h, "help", o))).toContain("/insight threads");
  });
});
