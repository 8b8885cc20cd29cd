import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { messageEvent } from "../../dev/emulator/events.js";
import type { SlackJob } from "../../src/jobs/job-types.js";
import { dmChannelOf } from "../../dev/slack-standin/server.js";
import { DIGEST_ACTIONS } from "../../src/slack/action-ids.js";
import type { Subscription } from "../../src/store/subscriptions.js";
import { digestsOf, messageText, startHarness, type Harness } from "../helpers/app-harness.js";
import { blockActionsPayload } from "../helpers/slack.js";
import { waitUntil } from "../reconcile/support.js";
import { sendEvent } from "../slack/commands/helpers.js";
import { allTexts } from "../slack/render/walk.js";

const GROUP = SEED.groups.support;
const ALL = "C0CARDSALL";
const NEGATIVE = "C0CARDSNEG";
const REPLIES = "C0CARDSREP";
const ALICE = "U0ALICE";
const CAROL = "U0CAROL";

type Block = { type: string; block_id?: string; elements?: { action_id?: string; type: string }[] };
type Stored = {
  channel: string;
  ts: string;
  text: string;
  blocks?: unknown[];
  updates: number;
  history: unknown[];
};

/** App-made date tokens are the only `<!…>` a card may carry. */
const inert = (t: string) => t.replace(/<!date\^\d+\^[^|<>]*\|[^<>]*>/g, "");

const sub = (channelId: string, over: Partial<Subscription> = {}): Subscription => ({
  channelId,
  groupId: GROUP,
  groupName: "Lumen DB Support",
  communityId: SEED.communities.primary,
  filters: {},
  createdBy: ALICE,
  createdAt: new Date().toISOString(),
  ...over,
});

describe("cards people act on (end to end over HTTP)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ tuning: { countsDebounceMs: 1_500, repliesBatchMs: 2_500 } });
    // Set up directly: the subscribe command and its options are tested elsewhere.
    await h.workspace.subscriptions.put(sub(ALL));
    await h.workspace.subscriptions.put(sub(NEGATIVE, { filters: { sentiments: ["negative"] } }));
    await h.workspace.subscriptions.put(sub(REPLIES, { delivery: { replies: true, format: "compact" } }));
  });
  afterAll(async () => h?.stop());

  const cardIn = (channel: string, threadId: string) =>
    digestsOf(h, threadId, channel)[0] as Stored | undefined;
  const shownText = (m: Stored) => messageText({ text: m.text, blocks: m.blocks ?? [] });

  /** A block action exactly as Slack sends it for a card in a channel, signed. */
  async function press(
    card: Stored,
    actionId: string,
    o: { value?: string; selectedUser?: string; user?: string } = {},
  ): Promise<{ status: number; responseUrl: string }> {
    const actions = (card.blocks as Block[]).find((b) => b.type === "actions");
    const responseUrl = h.slack.responseUrl();
    const res = await h.interact(
      blockActionsPayload({
        actionId,
        blockId: actions?.block_id ?? "",
        userId: o.user ?? ALICE,
        channelId: card.channel,
        messageTs: card.ts,
        responseUrl,
        inChannel: true,
        ...(o.value !== undefined ? { value: o.value } : {}),
        ...(o.selectedUser !== undefined ? { selectedUser: o.selectedUser } : {}),
      }),
    );
    return { status: res.status, responseUrl };
  }

  const repliesAt = (url: string) =>
    h.slack.responses
      .filter((r) => url.endsWith(`/${encodeURIComponent(r.id)}`))
      .map((r) => r.body as { text: string });

  let threadId = "";
  let card: Stored;

  it("a realtime card carries the four public actions", async () => {
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Refunds fail for annual plans",
      summary: "Several members cannot get a refund for the annual plan.",
      sentiment: "negative",
      isQuestionLed: true,
      questionResponseStatus: "unanswered",
    });
    threadId = thread.id;
    card = await h.slack.waitFor(() => cardIn(ALL, threadId));
    const actions = (card.blocks as Block[]).find((b) => b.type === "actions");
    expect(actions?.elements?.map((e) => e.action_id)).toEqual([
      "digest.view_messages",
      "digest.mark_handled",
      "digest.assign",
      "digest.follow",
      "digest.remind",
    ]);
    // The first post carries everything known: title, summary and sentiment.
    const t = shownText(card);
    expect(t).toContain("Several members cannot get a refund");
    expect(t).toContain("Negative");
    expect(t).not.toContain("No summary yet");
    // The filtered channel gets its card too.
    await h.slack.waitFor(() => cardIn(NEGATIVE, threadId));
  });

  it("Mark handled (double click) -> one edit showing who and when; pressed again it reopens", async () => {
    const before = card.updates;
    const [a, b] = await Promise.all([
      press(card, DIGEST_ACTIONS.markHandled, { value: "handle" }),
      press(card, DIGEST_ACTIONS.markHandled, { value: "handle" }),
    ]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const edited = await h.slack.waitFor(() => {
      const c = cardIn(ALL, threadId);
      return c && c.updates > before ? c : undefined;
    });
    expect(shownText(edited)).toMatch(/Handled by <@U0ALICE> <!date\^\d+\^/);
    expect(shownText(edited)).toContain("Reopen");
    await new Promise((r) => setTimeout(r, 600));
    expect(cardIn(ALL, threadId)?.updates).toBe(before + 1);
    expect((await h.workspace.triage.get(threadId)).handled?.by).toBe(ALICE);

    await press(edited, DIGEST_ACTIONS.markHandled, { value: "reopen" });
    const reopened = await h.slack.waitFor(() => {
      const c = cardIn(ALL, threadId);
      return c && c.updates > before + 1 ? c : undefined;
    });
    expect(shownText(reopened)).not.toContain("Handled by");
    expect(shownText(reopened)).toContain("Mark handled");
    expect((await h.workspace.triage.get(threadId)).handled).toBeUndefined();
    // And handled again, for the re-enrichment below.
    await press(reopened, DIGEST_ACTIONS.markHandled, { value: "handle" });
    await h.slack.waitFor(() => shownText(cardIn(ALL, threadId) as Stored).includes("Handled by"));
    card = cardIn(ALL, threadId) as Stored;
  });

  it("triage belongs to the thread: the mark shows on every card of it, and any card reopens or marks it", async () => {
    const handledEverywhere = () =>
      [ALL, NEGATIVE, REPLIES].every((c) =>
        shownText(cardIn(c, threadId) as Stored).includes("Handled by <@U0ALICE>"),
      );
    await h.slack.waitFor(handledEverywhere, { timeoutMs: 10_000 });
    // Reopened from the filtered channel's card: every card offers Mark handled again.
    await press(cardIn(NEGATIVE, threadId) as Stored, DIGEST_ACTIONS.markHandled, { value: "reopen" });
    await h.slack.waitFor(
      () =>
        [ALL, NEGATIVE, REPLIES].every(
          (c) => !shownText(cardIn(c, threadId) as Stored).includes("Handled by"),
        ),
      { timeoutMs: 10_000 },
    );
    expect((await h.workspace.triage.get(threadId)).handled).toBeUndefined();
    // Marked from the compact card: the full cards say so too.
    await press(cardIn(REPLIES, threadId) as Stored, DIGEST_ACTIONS.markHandled, { value: "handle" });
    await h.slack.waitFor(handledEverywhere, { timeoutMs: 10_000 });
    expect((await h.workspace.triage.get(threadId)).handled).toMatchObject({ by: ALICE, channelId: REPLIES });
    // Home shows where it was marked; put it back as the tests below expect (marked in ALL).
    await press(cardIn(ALL, threadId) as Stored, DIGEST_ACTIONS.markHandled, { value: "reopen" });
    await h.slack.waitFor(() => !shownText(cardIn(ALL, threadId) as Stored).includes("Handled by"));
    await press(cardIn(ALL, threadId) as Stored, DIGEST_ACTIONS.markHandled, { value: "handle" });
    await h.slack.waitFor(handledEverywhere, { timeoutMs: 10_000 });
    card = cardIn(ALL, threadId) as Stored;
  });

  it("Assign -> the card shows the assignee, who gets one DM with the card's link", async () => {
    await Promise.all([
      press(card, DIGEST_ACTIONS.assign, { selectedUser: CAROL }),
      press(card, DIGEST_ACTIONS.assign, { selectedUser: CAROL }),
    ]);
    const edited = await h.slack.waitFor(() => {
      const c = cardIn(ALL, threadId);
      return c && shownText(c).includes("Assigned to <@U0CAROL>") ? c : undefined;
    });
    const actions = (edited.blocks as { type: string; elements?: { initial_user?: string }[] }[]).find(
      (b) => b.type === "actions",
    );
    expect(actions?.elements?.[2]?.initial_user).toBe(CAROL);
    // Every card of the thread shows the assignee.
    await h.slack.waitFor(() =>
      [NEGATIVE, REPLIES].every((c) => shownText(cardIn(c, threadId) as Stored).includes("<@U0CAROL>")),
    );
    const dm = await h.slack.waitFor(() => h.slack.messages(dmChannelOf(CAROL))[0]);
    expect(dm.text).toContain("<@U0ALICE> assigned you *Refunds fail for annual plans* in <#C0CARDSALL>");
    expect(dm.text).toContain(`/archives/${ALL}/p${card.ts.replace(".", "")}|Open the card>`);
    await new Promise((r) => setTimeout(r, 600));
    expect(h.slack.messages(dmChannelOf(CAROL))).toHaveLength(1);
  });

  it("Follow (double click) -> followed once; a re-enrichment edits the card with what changed and DMs the follower", async () => {
    const [first] = await Promise.all([
      press(card, DIGEST_ACTIONS.follow, { user: CAROL, value: "toggle" }),
      press(card, DIGEST_ACTIONS.follow, { user: CAROL, value: "toggle" }),
    ]);
    const told = await h.slack.waitFor(() => repliesAt(first?.responseUrl ?? "")[0]);
    expect(told.text).toContain("You follow this thread");
    await h.slack.waitFor(() => shownText(cardIn(ALL, threadId) as Stored).includes("1 person following"));
    expect(await h.workspace.triage.followersOf(threadId)).toEqual([CAROL]);

    await h.emulator.enrichThread(
      GROUP,
      threadId,
      {
        summary: "Support found the cause <!channel>; refunds work again.",
        sentiment: "positive",
        questionResponseStatus: "answered",
      },
      "updated",
    );
    const edited = await h.slack.waitFor(
      () => {
        const c = cardIn(ALL, threadId);
        return c && shownText(c).includes("Positive") ? c : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const t = shownText(edited);
    expect(t).toContain(
      ":arrows_counterclockwise: changed since marked handled · Sentiment Negative → Positive · Unanswered → Answered · summary rewritten",
    );
    // Triage survives the re-enrichment edit.
    expect(t).toContain("Handled by <@U0ALICE>");
    expect(t).toContain("Assigned to <@U0CAROL>");
    expect(inert(t)).not.toMatch(/<!channel>/);
    const dms = await h.slack.waitFor(() => {
      const all = h.slack.messages(dmChannelOf(CAROL));
      return all.length >= 2 ? all : undefined;
    });
    expect(dms[1]?.text).toContain("A thread you follow has changed — *Refunds fail for annual plans*");
    expect(dms[1]?.text).toContain("Sentiment Negative → Positive");
    // Three channels show the thread and each card was edited: still one DM for the change.
    await h.slack.waitFor(() => {
      const c = cardIn(REPLIES, threadId);
      return c && shownText(c).includes("Positive") ? c : undefined;
    });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(h.slack.messages(dmChannelOf(CAROL))).toHaveLength(2);
  });

  it("rule 10: the filtered channel's card is edited to the current state and says it no longer matches", async () => {
    const stale = await h.slack.waitFor(() => {
      const c = cardIn(NEGATIVE, threadId);
      // Triage edits reach this card too now: wait for the re-enrichment's.
      return c && c.updates > 0 && shownText(c).includes("Positive") ? c : undefined;
    });
    const t = shownText(stale);
    expect(t).toContain("Positive");
    expect(t).toContain("No longer matches this channel's filters");
    expect(t).not.toContain("Negative |");
  });

  it("Messages opens the thread's messages modal", async () => {
    const opened = h.slack.calls.filter((c) => c.method === "views.open").length;
    const value = JSON.stringify({ g: GROUP, t: threadId, n: "Refunds fail for annual plans", p: 1 });
    const res = await press(card, DIGEST_ACTIONS.viewMessages, { value });
    expect(res.status).toBe(200);
    await h.slack.waitFor(() => h.slack.calls.filter((c) => c.method === "views.open").length > opened);
  });

  it("Home shows the thread as assigned to Carol and handled", async () => {
    await sendEvent(h, {
      type: "app_home_opened",
      user: CAROL,
      channel: "D0CAROL",
      tab: "home",
      event_ts: "1.2",
    });
    const view = await h.slack.waitFor(
      () => h.slack.views.published.get(CAROL) as { blocks: unknown[] } | undefined,
    );
    const t = allTexts(view.blocks).join("\n");
    expect(t).toMatch(/\*Assigned to you\*\n_Nothing assigned to you\._|\*Assigned to you\*\n• \*Refunds/);
    // Handled threads leave the assigned and open lists.
    expect(t).toContain(
      ":ballot_box_with_check: *Handled lately*\n• *Refunds fail for annual plans* — Lumen DB Support in <#C0CARDSALL> · by <@U0ALICE>",
    );
    // Three channels show it: listed once.
    expect(t.split("Refunds fail for annual plans")).toHaveLength(2);
  });

  it("Home's Open lists a thread shown in two channels once", async () => {
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Index rebuild stalls on ARM",
      sentiment: "neutral",
    });
    await h.slack.waitFor(() => cardIn(ALL, thread.id) && cardIn(REPLIES, thread.id));
    await sendEvent(h, {
      type: "app_home_opened",
      user: "U0DANA",
      channel: "D0DANA",
      tab: "home",
      event_ts: "1.3",
    });
    const view = await h.slack.waitFor(
      () => h.slack.views.published.get("U0DANA") as { blocks: unknown[] } | undefined,
    );
    const open = allTexts(view.blocks).find((x) => x.startsWith("*Open*")) ?? "";
    expect(open).toMatch(
      /^\*Open\*\n• \*Index rebuild stalls on ARM\* — Lumen DB Support in <#C0CARDS(ALL|REP)> · posted <!date\^\d+\^/,
    );
    expect(open.split("Index rebuild stalls on ARM")).toHaveLength(2);
  });

  it("a re-enrichment of a thread nobody follows edits its cards and reads or marks no followers", async () => {
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Nobody follows this",
      sentiment: "neutral",
    });
    const posted = await h.slack.waitFor(() => cardIn(ALL, thread.id));
    const before = posted.updates;
    await h.emulator.enrichThread(GROUP, thread.id, { summary: "A new summary nobody follows." }, "updated");
    await h.slack.waitFor(
      () => {
        const c = cardIn(ALL, thread.id);
        return c && c.updates > before ? c : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const marks = await h.services.redis.keys(`${h.config.redis.prefix}:*followers-told:${thread.id}:*`);
    // Before, every such edit read the followers and wrote the mark of their DMs (three commands).
    expect(marks).toEqual([]);
  });

  it("counts follow chatmessage-crud: one debounced edit with the listing's numbers", async () => {
    const { thread } = await h.emulator.createThread(GROUP, {
      title: "Replica lag after 4.2",
      sentiment: "neutral",
      // Its last message an hour ago: the new ones move its last activity.
      lastMessageDate: new Date(Date.now() - 3_600_000).toISOString(),
    });
    const posted = await h.slack.waitFor(() => cardIn(ALL, thread.id));
    // The stand-in keeps one object per message: remember the number, not the object.
    const before = posted.updates;
    const firstShown = shownText(posted);
    for (let i = 0; i < 4; i++) await h.emulator.postMessage(GROUP, thread.id, { messageText: `more ${i}` });
    const listed = h.emulator.store.threads(GROUP).find((t) => t.id === thread.id);
    const edited = await h.slack.waitFor(
      () => {
        const c = cardIn(ALL, thread.id);
        return c && c.updates > before ? c : undefined;
      },
      { timeoutMs: 10_000 },
    );
    expect(shownText(edited)).toContain(`*Messages:* ${listed?.messageCount}`);
    expect(shownText(edited)).toContain(`*Participants:* ${listed?.participantCount}`);
    // Last activity moves with the counts: the newest message's time.
    const last = Math.floor(Date.parse(listed?.lastMessageDate ?? "") / 1000);
    expect(shownText(edited)).toContain(`Last activity <!date^${last}^`);
    expect(firstShown).not.toContain(`Last activity <!date^${last}^`);
    await new Promise((r) => setTimeout(r, 2_000));
    // Four messages, one edit.
    expect(cardIn(ALL, thread.id)?.updates).toBe(before + 1);
    // Sent by the one job of the cards due at the window's end, its channel's turn being now:
    // no job of its own.
    const jobs = await countsJobsOf(ALL, thread.id);
    expect(jobs.due.map((j) => j.returnvalue)).toContain("asked");
    expect(jobs.edits).toHaveLength(0);
  });

  /** The Slack queue's jobs of a channel's counts: the jobs of due cards, and the card's edits. */
  async function countsJobsOf(channel: string, threadId: string) {
    const all = await h.services.queues.slack.getJobs([
      "completed",
      "waiting",
      "delayed",
      "active",
      "failed",
    ]);
    const of = (kind: SlackJob["kind"]) =>
      all.filter((j) => j.data.kind === kind && j.data.channelId === channel);
    return {
      due: of("counts"),
      edits: of("card").filter((j) => j.id?.startsWith("counts|") && j.id.includes(threadId)),
    };
  }

  it("a message delivery that moves no count edits nothing: the window's job finds the card as it is", async () => {
    const { thread } = await h.emulator.createThread(GROUP, { title: "Vacuum stalls on big tables" });
    await h.slack.waitFor(() => cardIn(ALL, thread.id));
    const { message } = await h.emulator.postMessage(GROUP, thread.id, { messageText: "first" });
    const edited = await h.slack.waitFor(
      () => {
        const c = cardIn(ALL, thread.id);
        return c && c.updates > 0 ? c : undefined;
      },
      { timeoutMs: 10_000 },
    );
    const edits = edited.updates;
    const dueBefore = (await countsJobsOf(ALL, thread.id)).due.length;
    // The same message edited: a chatmessage-crud of the thread whose counts stay as the card shows them.
    const group = h.emulator.store.group(GROUP);
    if (!group) throw new Error("the seeded group is missing");
    const res = await h.deliver(
      messageEvent("updated", group, { ...message, messageText: "first, edited" }, new Date()),
    );
    expect(res.status).toBe(200);
    // Its window (1.5 s) ends, and its job looks.
    let due: Awaited<ReturnType<typeof countsJobsOf>>["due"] = [];
    const looked = await waitUntil(async () => {
      due = (await countsJobsOf(ALL, thread.id)).due.filter((j) => j.finishedOn !== undefined);
      return due.length > dueBefore;
    });
    expect(looked).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    const last = due.reduce((a, b) => ((b.finishedOn ?? 0) > (a.finishedOn ?? 0) ? b : a));
    expect(last.returnvalue).toBe("stale");
    expect(cardIn(ALL, thread.id)?.updates).toBe(edits);
    expect((await countsJobsOf(ALL, thread.id)).edits).toHaveLength(0);
  });

  it("--replies on: a burst of ten messages is one reply under the compact card, escaped; bot messages left out", async () => {
    const { thread } = await h.emulator.createThread(GROUP, { title: "Backups on ARM", sentiment: "mixed" });
    const compact = await h.slack.waitFor(() => cardIn(REPLIES, thread.id));
    expect(compact.blocks?.length).toBeLessThanOrEqual(3);
    await h.deliver({
      webhookType: "chatmessage-crud",
      actionType: "created",
      payload: {
        communityId: SEED.communities.primary,
        timestamp: new Date().toISOString(),
        messageId: "msg-bot-0001",
        threadId: thread.id,
        groupId: GROUP,
        senderName: "Reminder Bot",
        text: "Daily reminder",
        isBotMessage: true,
      },
    });
    for (let i = 0; i < 10; i++) {
      await h.emulator.postMessage(GROUP, thread.id, {
        messageText: i === 0 ? "ping <!channel> and <@U123ABC> <https://evil.example|docs>" : `reply ${i}`,
      });
      // The webhook says nothing of these; only the message listing marks them.
      if (i === 3) {
        await h.emulator.postMessage(GROUP, thread.id, {
          messageText: "Deploy bot: build 812 passed",
          isBotMessage: true,
        });
        await h.emulator.postMessage(GROUP, thread.id, {
          messageText: "Maya pinned a message",
          isSystemMessage: true,
        });
      }
    }
    const reply = await h.slack.waitFor(
      () => h.slack.messages(REPLIES).find((m) => m.thread_ts === compact.ts && m.ts !== compact.ts),
      { timeoutMs: 10_000 },
    );
    // A loaded machine may spread the burst over two windows: wait for the second one too.
    await new Promise((r) => setTimeout(r, 3_000));
    const replies = h.slack
      .messages(REPLIES)
      .filter((m) => m.thread_ts === compact.ts && m.ts !== compact.ts);
    const t = replies.map((m) => messageText({ text: m.text, blocks: m.blocks ?? [] })).join("\n");
    expect(t).toContain("reply 9");
    expect(t).not.toContain("Daily reminder");
    expect(t).not.toContain("Deploy bot: build 812 passed");
    expect(t).not.toContain("pinned a message");
    expect(t).toContain("reply 4");
    expect(t).toContain("ping &lt;!channel&gt; and &lt;@U123ABC&gt; &lt;https://evil.example|docs&gt;");
    expect(inert(t)).not.toMatch(/<[!@#]|<https?:/);
    // Ten messages arriving together: one reply (two at most if the burst straddles a window).
    expect(replies.length).toBeLessThanOrEqual(2);
    expect(reply.text).toMatch(/new messages? in this thread/);
  });
});
