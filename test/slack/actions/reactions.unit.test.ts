import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { TRIAGE_ADMINS_ONLY } from "../../../src/slack/actions/card-actions.js";
import { onReaction, type ReactionDeps, type ReactionEvent } from "../../../src/slack/actions/reactions.js";
import { DIGEST_EVENT_TYPE } from "../../../src/slack/outbound/slack-sender.js";
import { FakeCards, FakeTriage } from "../../helpers/fakes.js";

const CARD = { channel: "C0CARDS", ts: "1700000000.000100" };
const AT = new Date("2026-03-13T12:00:00.000Z");

/** Slack as the handler reads it: a card with digest metadata, one human message, and reactions. */
function setup(o: { admins?: string[]; marks?: Record<string, string[]> } = {}) {
  const triage = new FakeTriage();
  const cards = new FakeCards();
  const calls: string[] = [];
  const ephemerals: { user: string; text: string }[] = [];
  const deps: ReactionDeps = {
    triage,
    cards,
    refs: {
      get: async (channel, threadId) =>
        channel === CARD.channel && threadId === "thr_1"
          ? { ts: CARD.ts, enrichedAtMs: 1, hasSentiment: true, groupId: "group-1" }
          : undefined,
      channelsOf: async () => [CARD.channel],
    },
    adminUserIds: o.admins ?? [],
    logger: silentLogger,
    slack: {
      call: async <T>(method: string, args: Record<string, unknown> = {}): Promise<T> => {
        calls.push(method);
        if (method === "conversations.history") {
          const card = args.latest === CARD.ts;
          return {
            ok: true,
            messages: [
              card
                ? {
                    ts: CARD.ts,
                    metadata: {
                      event_type: DIGEST_EVENT_TYPE,
                      event_payload: { thread_id: "thr_1", group_id: "group-1" },
                    },
                  }
                : { ts: String(args.latest), text: "hello" },
            ],
          } as T;
        }
        if (method === "reactions.get") {
          const reactions = Object.entries(o.marks ?? {}).map(([name, users]) => ({ name, users }));
          return { ok: true, message: { reactions } } as T;
        }
        return { ok: true } as T;
      },
      postEphemeral: async (a) => {
        ephemerals.push({ user: a.user, text: a.text });
        return { message_ts: "1.1" };
      },
    },
  };
  const event = (over: Partial<ReactionEvent> = {}): ReactionEvent => ({
    type: "reaction_added",
    user: "U0MAYA",
    reaction: "white_check_mark",
    item: { type: "message", channel: CARD.channel, ts: CARD.ts },
    item_user: "U0BOT",
    ...over,
  });
  return { deps, triage, cards, calls, ephemerals, event };
}

describe("triage by reaction (handler with fake deps)", () => {
  it("✅ on a card marks its thread handled by the person who reacted, and the card is edited", async () => {
    const { deps, triage, cards, event } = setup();
    expect(await onReaction(deps, event(), { now: AT })).toBe("changed");
    expect(triage.handled.get("thr_1")).toEqual({ by: "U0MAYA", atMs: AT.getTime(), channelId: "C0CARDS" });
    expect(cards.refreshed).toEqual([
      { threadId: "thr_1", key: `handled-${AT.getTime()}-U0MAYA`, pressedIn: "C0CARDS" },
    ]);
    // The other check mark, or a skin tone, means the same; a second mark changes nothing.
    expect(await onReaction(deps, event({ user: "U0SAM", reaction: "heavy_check_mark" }), { now: AT })).toBe(
      "unchanged",
    );
  });

  it("👀 assigns the thread to the person who reacted (no DM to oneself); removing it leaves the assignment", async () => {
    const { deps, triage, cards, event } = setup();
    expect(await onReaction(deps, event({ reaction: "eyes" }), { now: AT })).toBe("changed");
    expect(triage.assignees.get("thr_1")).toBe("U0MAYA");
    expect(cards.dms).toEqual([]);
    expect(await onReaction(deps, event({ type: "reaction_removed", reaction: "eyes" }))).toBe("ignored");
    expect(triage.assignees.get("thr_1")).toBe("U0MAYA");
  });

  it("removing one's ✅ reopens; removing it while someone else's ✅ stands keeps it handled, by them", async () => {
    const a = setup();
    await onReaction(a.deps, a.event(), { now: AT });
    expect(await onReaction(a.deps, a.event({ type: "reaction_removed" }), { now: AT })).toBe("changed");
    expect(a.triage.handled.size).toBe(0);

    const b = setup({ marks: { heavy_check_mark: ["U0SAM"] } });
    await onReaction(b.deps, b.event(), { now: AT });
    expect(await onReaction(b.deps, b.event({ type: "reaction_removed" }), { now: AT })).toBe("changed");
    expect(b.triage.handled.get("thr_1")?.by).toBe("U0SAM");

    // Someone else removing theirs never reopens Maya's mark.
    const c = setup();
    await onReaction(c.deps, c.event(), { now: AT });
    expect(await onReaction(c.deps, c.event({ type: "reaction_removed", user: "U0SAM" }))).toBe("kept");
    expect(c.triage.handled.get("thr_1")?.by).toBe("U0MAYA");
    // Nor does removing one of two marks of one's own.
    const d = setup({ marks: { "white_check_mark::skin-tone-3": ["U0MAYA"] } });
    await onReaction(d.deps, d.event({ reaction: "heavy_check_mark" }), { now: AT });
    expect(
      await onReaction(d.deps, d.event({ type: "reaction_removed", reaction: "heavy_check_mark" })),
    ).toBe("kept");
  });

  it("reactions on any other message, other emoji, and files are ignored without a Slack call when they can be", async () => {
    const { deps, triage, calls, event } = setup();
    expect(
      await onReaction(
        deps,
        event({ item: { type: "message", channel: "C0CARDS", ts: "1700000000.000999" } }),
      ),
    ).toBe("ignored");
    expect(calls).toEqual(["conversations.history"]);
    expect(await onReaction(deps, event({ reaction: "tada" }))).toBe("ignored");
    expect(await onReaction(deps, event({ item: { type: "file" } }))).toBe("ignored");
    expect(await onReaction(deps, event({ item_user: "U0HUMAN" }), { botUserId: "U0BOT" })).toBe("ignored");
    expect(calls).toEqual(["conversations.history"]);
    expect(triage.handled.size).toBe(0);
  });

  it("where only admins triage, a reaction by someone else is refused privately, as the button is", async () => {
    const { deps, triage, ephemerals, event } = setup({ admins: ["U0ADMIN"] });
    expect(await onReaction(deps, event())).toBe("refused");
    expect(ephemerals).toEqual([{ user: "U0MAYA", text: TRIAGE_ADMINS_ONLY }]);
    expect(triage.handled.size).toBe(0);
  });
});
