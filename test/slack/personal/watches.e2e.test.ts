import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../../dev/emulator/index.js";
import { dmChannelOf } from "../../../dev/slack-standin/server.js";
import { DIGEST_ACTIONS } from "../../../src/slack/action-ids.js";
import {
  digestsOf,
  messageText,
  startHarness,
  TEST_CHANNEL,
  type Harness,
} from "../../helpers/app-harness.js";
import { blockActionsPayload } from "../../helpers/slack.js";
import { ask, sendEvent } from "../commands/helpers.js";

/*
 * Personal watches on the delivery path (issue 36), end to end: the emulator enriches a thread and
 * sends its webhook, the relay routes it, and the person's DM arrives in the stand-in Slack, with
 * the person's own time zone from users.info. What each person reads, exactly.
 */

const FOLLOWED = SEED.groups.support;
/** No channel follows it: its deliveries reach the relay only because a watch covers it. */
const UNFOLLOWED = SEED.groups.contributors;
const MAYA = "U0MAYA";
const SAM = "U0SAM";
const LEE = "U0LEE";
const DANA = "U0DANA";

type Stored = { channel: string; ts: string; text: string; blocks?: unknown[]; updates: number };

describe("watch DMs, end to end", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.subscribe(FOLLOWED);
  });
  afterAll(async () => h?.stop());

  const dms = (user: string) => h.slack.messages(dmChannelOf(user)) as Stored[];
  const shown = (m: Stored) => messageText({ text: m.text, blocks: m.blocks ?? [] });

  /** A block action on a message in a channel or a DM, as Slack sends it, signed. */
  async function press(m: Stored, actionId: string, user: string, value: string): Promise<void> {
    const actions = (m.blocks as { type: string; block_id?: string }[]).find((b) => b.type === "actions");
    const res = await h.interact(
      blockActionsPayload({
        actionId,
        blockId: actions?.block_id ?? "",
        userId: user,
        channelId: m.channel,
        messageTs: m.ts,
        responseUrl: h.slack.responseUrl(),
        inChannel: true,
        value,
      }),
    );
    expect(res.status).toBe(200);
  }

  let matched = "";

  it("a matching thread of a group no channel follows: one DM to the person whose watch it matches, none to anyone else", async () => {
    expect((await ask(h, "watch compaction stalls", { user: MAYA })).text).toContain(
      ":telescope: Watching: “compaction stalls” in any group.",
    );
    expect((await ask(h, "watch backups", { user: SAM })).text).toContain(
      ":telescope: Watching: “backups” in any group.",
    );
    const { thread } = await h.emulator.createThread(UNFOLLOWED, {
      title: "Compaction stalls on large tables",
      summary: "Contributors see compaction stop halfway on tables over 1 TB.",
      sentiment: "negative",
      keywords: ["compaction", "storage"],
    });
    matched = thread.id;
    const dm = await h.slack.waitFor(() => dms(MAYA)[0], { timeoutMs: 10_000 });
    expect(dm.text).toBe("Your watch “compaction stalls”: Compaction stalls on large tables");
    const t = shown(dm);
    expect(t).toContain(":telescope: Matches your watch “compaction stalls”");
    // The compact card names its group.
    expect(t).toContain(":busts_in_silhouette: Lumen DB Contributors");
    expect(t).toContain("Compaction stalls on large tables");
    expect(t).toContain("Negative");
    // The card's buttons come with it.
    for (const label of ["Messages", "Mark handled", "Follow", "Remind me"]) expect(t).toContain(label);
    // A thread that does not match, and the other person: nothing.
    await h.emulator.createThread(UNFOLLOWED, { title: "Docs typo in the README", sentiment: "neutral" });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(dms(MAYA)).toHaveLength(1);
    expect(dms(SAM)).toEqual([]);
    // No channel follows that group: nothing was posted to one.
    expect(digestsOf(h, thread.id)).toEqual([]);
  });

  it("a later change of the thread edits that DM; it never sends a second one", async () => {
    await h.emulator.enrichThread(
      UNFOLLOWED,
      matched,
      { sentiment: "positive", questionResponseStatus: "answered" },
      "updated",
    );
    const edited = await h.slack.waitFor(
      () => {
        const m = dms(MAYA)[0];
        return m && m.updates > 0 && shown(m).includes("Positive") ? m : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(shown(edited)).not.toContain("Negative");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(dms(MAYA)).toHaveLength(1);
  });

  it("Mark handled on a watch DM shows on that DM and on every channel card of the thread; Reopen on the card clears both", async () => {
    expect((await ask(h, "watch vacuum freezes", { user: DANA })).text).toContain("Watching");
    const { thread } = await h.emulator.createThread(FOLLOWED, {
      title: "Vacuum freezes the primary",
      sentiment: "negative",
    });
    const dm = await h.slack.waitFor(() => dms(DANA)[0], { timeoutMs: 10_000 });
    const card = await h.slack.waitFor(() => digestsOf(h, thread.id)[0] as Stored | undefined);
    await press(dm, DIGEST_ACTIONS.markHandled, DANA, "handle");
    await h.slack.waitFor(() => shown(dms(DANA)[0] as Stored).includes("Handled by <@U0DANA>"), {
      timeoutMs: 10_000,
    });
    await h.slack.waitFor(() => shown(digestsOf(h, thread.id)[0] as Stored).includes("Handled by <@U0DANA>"));
    expect((await h.workspace.triage.get(thread.id)).handled?.by).toBe(DANA);
    // Reopened from the channel's card by someone else: the DM follows.
    await press(digestsOf(h, thread.id)[0] as Stored, DIGEST_ACTIONS.markHandled, "U0ALICE", "reopen");
    await h.slack.waitFor(() => !shown(dms(DANA)[0] as Stored).includes("Handled by"), { timeoutMs: 10_000 });
    expect(shown(dms(DANA)[0] as Stored)).toContain("Mark handled");
    expect(card.channel).toBe(TEST_CHANNEL);
    // A ✅ on the watch DM marks the thread too (the DM is a card of it).
    await sendEvent(h, {
      type: "reaction_added",
      user: DANA,
      reaction: "white_check_mark",
      item: { type: "message", channel: dm.channel, ts: dm.ts },
      item_user: "U0BOT",
      event_ts: "1.5",
    });
    await h.slack.waitFor(
      () => shown(digestsOf(h, thread.id)[0] as Stored).includes("Handled by <@U0DANA>"),
      {
        timeoutMs: 10_000,
      },
    );
  });

  it("quiet hours in the person's own zone: held while they last, then one gathered DM; someone without them gets it at once", async () => {
    // Lee is in Kolkata (UTC+5:30): his quiet hours end at the next minute of his clock.
    const zone = "Asia/Kolkata";
    h.slack.setTimeZone(LEE, zone);
    const clock = (ms: number) =>
      new Intl.DateTimeFormat("en-GB", {
        timeZone: zone,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).format(new Date(ms));
    // At least 15 s of quiet, at most 75 s.
    const secondsLeft = 60 - new Date().getUTCSeconds();
    const endMs = Date.now() + secondsLeft * 1_000 + (secondsLeft < 15 ? 60_000 : 0);
    const quiet = `${clock(Date.now() - 3_600_000)}-${clock(endMs)}`;
    const confirmed = await ask(h, `watch replication lag --quiet ${quiet}`, { user: LEE });
    expect(confirmed.text).toContain(
      `(${zone}) they wait, and come gathered in one DM when your quiet hours end.`,
    );
    await ask(h, "watch replication lag", { user: MAYA });
    const { thread } = await h.emulator.createThread(UNFOLLOWED, {
      title: "Replication lag after failover",
      sentiment: "mixed",
    });
    // Maya, without quiet hours, has it at once; Lee's waits.
    await h.slack.waitFor(() => dms(MAYA).find((m) => m.text.includes("Replication lag after failover")), {
      timeoutMs: 10_000,
    });
    expect(dms(LEE)).toEqual([]);
    const pending = await h.workspace.watchPending.peek(LEE);
    expect(pending.map((p) => p.digest.threadId)).toEqual([thread.id]);
    expect(Math.abs((pending[0]?.dueAtMs ?? 0) - Math.floor(endMs / 60_000) * 60_000)).toBeLessThan(1_000);
    const gathered = await h.slack.waitFor(() => dms(LEE)[0], { timeoutMs: 90_000 });
    expect(Date.now()).toBeGreaterThanOrEqual(pending[0]?.dueAtMs ?? 0);
    expect(gathered.text).toBe("Your watches: 1 thread matched");
    const t = shown(gathered);
    expect(t).toContain("Your watches: 1 thread");
    expect(t).toMatch(/:telescope: Held during your quiet hours · matched since <!date\^\d+\^/);
    expect(t).toContain("*Replication lag after failover*");
    await new Promise((r) => setTimeout(r, 1_000));
    expect(dms(LEE)).toHaveLength(1);
    expect(await h.workspace.watchPending.peek(LEE)).toEqual([]);
  }, 120_000);
});
