import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import {
  pressAssign,
  pressFollow,
  pressMarkHandled,
  TRIAGE_ADMINS_ONLY,
  type CardActionDeps,
  type CardPress,
} from "../../../src/slack/actions/card-actions.js";
import { STALE_BUTTON, type ActionReply } from "../../../src/slack/actions/reply.js";
import type { MessageRef } from "../../../src/store/message-refs.js";
import { digest } from "../../fixtures/threads/build.js";
import { FakeCards, FakeTriage } from "../../helpers/fakes.js";

const BLOCK = 'digest.card:{"g":"group-0001","t":"thread-0001"}';
const AT = new Date("2025-03-06T12:00:00.000Z");

function setup(o: { admins?: string[]; ref?: MessageRef } = {}) {
  const triage = new FakeTriage();
  const cards = new FakeCards();
  const deps: CardActionDeps = {
    triage,
    cards,
    refs: { get: async () => o.ref, channelsOf: async () => (o.ref ? ["C0CARDS"] : []) },
    adminUserIds: o.admins ?? [],
    logger: silentLogger,
  };
  const replies: ActionReply[] = [];
  const press = (over: Partial<CardPress> = {}): CardPress => ({
    userId: "U0ALICE",
    channelId: "C0CARDS",
    blockId: BLOCK,
    respond: async (r) => {
      replies.push(r);
    },
    now: AT,
    ...over,
  });
  return { deps, triage, cards, replies, press };
}

describe("card actions (handlers with fake deps)", () => {
  it("refuses handled and assign, ephemerally, for users outside ADMIN_USER_IDS; Follow stays open", async () => {
    const { deps, replies, press, cards } = setup({ admins: ["U0ADMIN"] });
    expect(await pressMarkHandled(deps, press({ value: "handle" }))).toBe("refused");
    expect(await pressAssign(deps, press({ selectedUser: "U0CAROL" }))).toBe("refused");
    expect(replies.map((r) => [r.text, r.response_type, r.replace_original])).toEqual([
      [TRIAGE_ADMINS_ONLY, "ephemeral", false],
      [TRIAGE_ADMINS_ONLY, "ephemeral", false],
    ]);
    expect(TRIAGE_ADMINS_ONLY).not.toMatch(/ADMIN_USER_IDS/);
    expect(await pressFollow(deps, press({ value: "toggle" }))).toBe("followed");
    expect(cards.refreshed).toHaveLength(1);
    expect(await pressMarkHandled(deps, press({ userId: "U0ADMIN", value: "handle" }))).toBe("changed");
  });

  it("a button whose card it cannot read says so instead of guessing", async () => {
    const { deps, replies, press, cards } = setup();
    expect(await pressMarkHandled(deps, press({ blockId: "actions", value: "handle" }))).toBe("refused");
    expect(await pressMarkHandled(deps, press({ value: "maybe" }))).toBe("refused");
    expect(replies.map((r) => r.text)).toEqual([STALE_BUTTON, STALE_BUTTON]);
    expect(cards.refreshed).toHaveLength(0);
  });

  it("handle twice acts once; reopen then handle acts each time", async () => {
    const { deps, press, cards, triage } = setup();
    expect(await pressMarkHandled(deps, press({ value: "handle" }))).toBe("changed");
    expect(await pressMarkHandled(deps, press({ value: "handle" }))).toBe("unchanged");
    expect(cards.refreshed).toHaveLength(1);
    expect(triage.handled.get("thread-0001")).toEqual({
      by: "U0ALICE",
      atMs: AT.getTime(),
      channelId: "C0CARDS",
    });
    expect(await pressMarkHandled(deps, press({ value: "reopen" }))).toBe("changed");
    expect(triage.handled.size).toBe(0);
  });

  it("assign DMs the assignee once, with the card to link; names in the DM come from Slack, titles escaped", async () => {
    const ref: MessageRef = {
      ts: "1700000000.000100",
      enrichedAtMs: 1,
      hasSentiment: true,
      groupId: "group-0001",
      card: { digest: digest({ title: "Refunds <!channel> & more" }), change: [], noLongerMatches: false },
    };
    const { deps, press, cards, replies } = setup({ ref });
    expect(await pressAssign(deps, press({ selectedUser: "U0CAROL" }))).toBe("changed");
    expect(await pressAssign(deps, press({ selectedUser: "U0CAROL" }))).toBe("unchanged");
    expect(cards.dms).toHaveLength(1);
    expect(cards.dms[0]).toMatchObject({
      userId: "U0CAROL",
      text: ":bust_in_silhouette: <@U0ALICE> assigned you *Refunds &lt;!channel&gt; &amp; more* in <#C0CARDS>.",
      card: { channel: "C0CARDS", ts: "1700000000.000100" },
    });
    expect(await pressAssign(deps, press({ selectedUser: "<!here>" }))).toBe("refused");
    expect(replies.at(-1)?.text).toContain("Pick a person");
  });

  it("follow: a double click counts once; pressed again later it unfollows", async () => {
    const { deps, press, triage, replies } = setup();
    expect(await pressFollow(deps, press())).toBe("followed");
    expect(await pressFollow(deps, press())).toBe("unchanged");
    triage.presses.clear(); // the 3-second window passed
    expect(await pressFollow(deps, press())).toBe("unfollowed");
    expect(replies.map((r) => r.text)).toEqual([
      expect.stringContaining("You follow this thread"),
      "You no longer follow this thread.",
    ]);
  });

  it("a press acts on the thread: every card of it is asked to follow, the card pressed named", async () => {
    const { deps, press, cards, triage } = setup();
    expect(await pressMarkHandled(deps, press({ value: "handle" }))).toBe("changed");
    expect(cards.refreshed).toEqual([
      { threadId: "thread-0001", key: `handled-${AT.getTime()}-U0ALICE`, pressedIn: "C0CARDS" },
    ]);
    // Pressed again on another channel's card of the same thread: already handled, one effect.
    expect(await pressMarkHandled(deps, press({ channelId: "C0OTHER", value: "handle" }))).toBe("unchanged");
    expect(triage.handled.get("thread-0001")?.channelId).toBe("C0CARDS");
  });

  it("on a watch DM: the mark names no channel; the assignee's DM links the thread's channel card", async () => {
    const ref: MessageRef = {
      ts: "1700000000.000100",
      enrichedAtMs: 1,
      hasSentiment: true,
      groupId: "group-0001",
      card: { digest: digest({ title: "Refunds fail" }), change: [], noLongerMatches: false },
    };
    const { deps, press, cards, triage } = setup({ ref });
    expect(await pressMarkHandled(deps, press({ channelId: "D0ALICE", value: "handle" }))).toBe("changed");
    expect(triage.handled.get("thread-0001")).toEqual({ by: "U0ALICE", atMs: AT.getTime() });
    expect(await pressAssign(deps, press({ channelId: "D0ALICE", selectedUser: "U0CAROL" }))).toBe("changed");
    expect(cards.dms.at(-1)).toMatchObject({
      userId: "U0CAROL",
      text: ":bust_in_silhouette: <@U0ALICE> assigned you *Refunds fail* in <#C0CARDS>.",
      card: { channel: "C0CARDS", ts: "1700000000.000100" },
    });
  });

  it("on a watch DM of a thread no channel shows: the assignee's DM names the thread from the watch DM, without a link", async () => {
    const { deps, press, cards } = setup();
    deps.watchDms = {
      get: async () => ({
        kind: "card",
        channel: "D0ALICE",
        ts: "1.1",
        watchId: "1",
        digest: digest({ title: "Backups slow <b>" }),
        sentAtMs: 1,
      }),
    };
    expect(await pressAssign(deps, press({ channelId: "D0ALICE", selectedUser: "U0CAROL" }))).toBe("changed");
    expect(cards.dms.at(-1)).toEqual({
      userId: "U0CAROL",
      text: ":bust_in_silhouette: <@U0ALICE> assigned you *Backups slow &lt;b&gt;*.",
      key: `assign-thread-0001-U0CAROL-${AT.getTime()}`,
    });
  });
});
