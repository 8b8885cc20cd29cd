import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../dev/emulator/index.js";
import { READING_STATUS } from "../../src/ask/assistant-listeners.js";
import { NOT_ANSWERING } from "../../src/ask/answer-question.js";
import { examplesReply, understandQuestion } from "../../src/ask/understand-question.js";
import type { Understanding } from "../../src/ask/types.js";
import { sentimentLabel } from "../../src/domain/sentiment.js";
import { ACTIONS } from "../../src/slack/action-ids.js";
import type { Subscription } from "../../src/store/subscriptions.js";
import { startHarness, TEST_CHANNEL, type Harness } from "../helpers/app-harness.js";
import { blockActionsPayload } from "../helpers/slack.js";
import { buttons } from "../slack/commands/helpers.js";
import {
  expectedFigures,
  firstSection,
  mention,
  nthReply,
  postEvent,
  repliesIn,
  slackEvent,
  threadMessage,
  threadStarted,
} from "./support.js";

const ALICE = "U0ALICE";
const ALICE_ZONE = "America/Los_Angeles";
const DM = "D0ALICE";
const FAULT_CHANNEL = "C0FAULTS";

const follow = (channelId: string, groupId: string, groupName: string): Subscription => ({
  channelId,
  groupId,
  groupName,
  communityId: undefined,
  filters: {},
  createdBy: "U0ADMIN",
  createdAt: new Date().toISOString(),
});

/** What the app reads of a question, in Alice's zone, now. */
function read(text: string): Understanding {
  const r = understandQuestion(text, { now: Date.now(), timeZone: ALICE_ZONE });
  if (!r.ok) throw new Error(r.reply);
  return r.understood;
}

let seq = 0;
/** A fresh Slack ts (seconds.micro), increasing. */
const nextTs = () => `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, "0")}`;

describe("the assistant, end to end (Bolt's Assistant, Redis, the emulator and the stand-in Slack)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ registerWebhook: false });
    await h.workspace.subscriptions.put(follow(TEST_CHANNEL, SEED.groups.support, "Lumen DB Support"));
    await h.workspace.subscriptions.put(follow("C0RIDES", SEED.groups.rides, "Saturday Rides"));
    await h.workspace.subscriptions.put(follow(FAULT_CHANNEL, SEED.groups.workshop, "Bike Workshop & Gear"));
  }, 30_000);
  afterAll(async () => h?.stop());
  beforeEach(() => {
    h.slack.timeZones.set(ALICE, ALICE_ZONE);
  });
  afterEach(() => h.emulator.faults.clear());

  it("starts a thread with four prompts drawn from the workspace's own groups, the thread's channel first", async () => {
    const threadTs = nextTs();
    const res = await postEvent(
      h,
      threadStarted({ user: ALICE, dm: DM, threadTs, contextChannel: "C0RIDES" }),
    );
    expect(res.status).toBe(200);
    const call = await h.slack.waitFor(() =>
      h.slack.posts("assistant.threads.setSuggestedPrompts").find((c) => c.args.thread_ts === threadTs),
    );
    expect(call.args).toEqual({
      channel_id: DM,
      thread_ts: threadTs,
      title: "Ask about the community",
      prompts: [
        {
          title: "Unhappy this week in Saturday Rides",
          message: "What are people unhappy about this week in Saturday Rides?",
        },
        {
          title: "Unanswered in Lumen DB Support",
          message: "Which questions are still unanswered in Lumen DB Support?",
        },
        {
          title: "Today in Bike Workshop & Gear",
          message: "What are people saying today in Bike Workshop & Gear?",
        },
        { title: "The last 30 days", message: "What happened in the last 30 days?" },
      ],
    });
    // The thread's context is kept in Redis (the workspace's own keys), not in message metadata.
    const key = h.services.keys.askThread(DM, threadTs);
    expect(JSON.parse((await h.services.redis.hget(key, "context")) ?? "{}")).toEqual({
      channelId: "C0RIDES",
      teamId: "T0STANDIN",
    });
    expect(await h.services.redis.ttl(key)).toBeGreaterThan(6 * 24 * 3600);
  });

  it("follows the channel the person looks at (assistant_thread_context_changed, through the Redis context store)", async () => {
    const threadTs = nextTs();
    await postEvent(h, threadStarted({ user: ALICE, dm: DM, threadTs, contextChannel: TEST_CHANNEL }));
    await h.slack.waitFor(() =>
      h.slack.posts("assistant.threads.setSuggestedPrompts").find((c) => c.args.thread_ts === threadTs),
    );
    await postEvent(
      h,
      slackEvent("assistant_thread_context_changed", {
        event: {
          assistant_thread: {
            user_id: ALICE,
            context: { channel_id: "C0RIDES", team_id: "T0STANDIN" },
            channel_id: DM,
            thread_ts: threadTs,
          },
          event_ts: nextTs(),
        },
      }),
    );
    const key = h.services.keys.askThread(DM, threadTs);
    await expect
      .poll(async () => JSON.parse((await h.services.redis.hget(key, "context")) ?? "{}") as unknown)
      .toEqual({ channelId: "C0RIDES", teamId: "T0STANDIN" });
    await postEvent(
      h,
      threadMessage({ user: ALICE, dm: DM, threadTs, ts: nextTs(), text: "what happened today?" }),
    );
    const answer = await nthReply(h, DM, threadTs);
    expect(firstSection(answer).split("\n")[0]).toBe(
      `In *Saturday Rides* (followed in <#C0RIDES>), ${read("today").range.label}:`,
    );
    // Bolt's default store would have rewritten a message's metadata: nothing was posted or edited for it.
    expect(
      h.slack.calls.filter((c) => c.method === "chat.update" || c.method === "conversations.replies"),
    ).toEqual([]);
  });

  it("answers a question in the thread: a status at once, a title from the first question, figures from the listing", async () => {
    const threadTs = nextTs();
    await postEvent(h, threadStarted({ user: ALICE, dm: DM, threadTs, contextChannel: TEST_CHANNEL }));
    await h.slack.waitFor(() =>
      h.slack.posts("assistant.threads.setSuggestedPrompts").find((c) => c.args.thread_ts === threadTs),
    );
    const question = "What are people unhappy about this week?";
    const sent = Date.now();
    await postEvent(h, threadMessage({ user: ALICE, dm: DM, threadTs, ts: nextTs(), text: question }));
    const answer = await nthReply(h, DM, threadTs);

    const status = h.slack.posts("assistant.threads.setStatus").find((c) => c.args.thread_ts === threadTs);
    expect(status?.args).toEqual({ channel_id: DM, thread_ts: threadTs, status: READING_STATUS });
    expect((status?.at ?? Infinity) - sent).toBeLessThan(1_000);
    const post = h.slack.posts().find((c) => c.args.thread_ts === threadTs);
    expect(status?.at).toBeLessThanOrEqual(post?.at ?? 0);
    const title = h.slack.posts("assistant.threads.setTitle").filter((c) => c.args.thread_ts === threadTs);
    expect(title.map((c) => c.args)).toEqual([{ channel_id: DM, thread_ts: threadTs, title: question }]);

    const u = read(question);
    const f = expectedFigures(
      h.emulator.store.threads(SEED.groups.support),
      u.range,
      (t) => sentimentLabel(t.sentiment).tone === "negative",
    );
    const lines = firstSection(answer).split("\n");
    expect(lines[0]).toBe(
      `In *Lumen DB Support* (followed in <#${TEST_CHANNEL}>), ${u.range.label}, negative threads:`,
    );
    if (f.threads > 0) {
      expect(lines[1]).toMatch(new RegExp(`^\\*${f.threads} threads?\\* · ${f.messages} messages? · `));
    } else {
      expect(lines[1]).toContain(`No matching thread in ${u.range.label}`);
    }
    // A second question in the thread does not retitle it.
    await postEvent(h, threadMessage({ user: ALICE, dm: DM, threadTs, ts: nextTs(), text: "and today?" }));
    await nthReply(h, DM, threadTs, 2);
    expect(
      h.slack.posts("assistant.threads.setTitle").filter((c) => c.args.thread_ts === threadTs),
    ).toHaveLength(1);
  });

  it("a follow-up keeps the group and period the earlier question named, unless it names others", async () => {
    const threadTs = nextTs();
    await postEvent(h, threadStarted({ user: ALICE, dm: DM, threadTs }));
    const ask = async (text: string, n: number) => {
      await postEvent(h, threadMessage({ user: ALICE, dm: DM, threadTs, ts: nextTs(), text }));
      return firstSection(await nthReply(h, DM, threadTs, n)).split("\n")[0];
    };
    const thisWeek = read("this week").range.label;
    const lastMonth = read("last month").range.label;
    expect(await ask("unanswered questions in Saturday Rides this week", 1)).toBe(
      `In *Saturday Rides*, ${thisWeek}, unanswered questions:`,
    );
    expect(await ask("and last month?", 2)).toBe(`In *Saturday Rides*, ${lastMonth}:`);
    expect(await ask("what about punctures?", 3)).toBe(
      `In *Saturday Rides*, ${lastMonth}, about “punctures”:`,
    );
    expect(await ask("and in Lumen DB Support?", 4)).toBe(`In *Lumen DB Support*, ${lastMonth}:`);
  });

  it("answers a mention in a thread under it, publicly, about the channel's groups", async () => {
    const ts = nextTs();
    const res = await postEvent(
      h,
      mention({ user: ALICE, channel: TEST_CHANNEL, ts, text: "what happened in the last 30 days?" }),
    );
    expect(res.status).toBe(200);
    const answer = await nthReply(h, TEST_CHANNEL, ts);
    const u = read("what happened in the last 30 days?");
    const f = expectedFigures(h.emulator.store.threads(SEED.groups.support), u.range);
    const lines = firstSection(answer).split("\n");
    expect(lines[0]).toBe(`In *Lumen DB Support* (followed in <#${TEST_CHANNEL}>), ${u.range.label}:`);
    expect(lines[1]).toMatch(new RegExp(`^\\*${f.threads} threads?\\* · ${f.messages} messages? · `));
    // Public: a message in the channel's thread, never an ephemeral one.
    expect(h.slack.ephemerals().filter((c) => c.args.channel === TEST_CHANNEL)).toEqual([]);
    // Five cards at most, the rest behind "Show 5 more".
    const viewButtons = buttons(answer.blocks).filter((b) => b.action_id === ACTIONS.viewMessages);
    expect(viewButtons).toHaveLength(Math.min(5, f.threads));
    if (f.threads > 5) {
      const more = buttons(answer.blocks).find((b) => b.action_id === ACTIONS.askMore);
      expect(more?.text.text).toBe(`Show ${Math.min(5, f.threads - 5)} more`);
      const payload = blockActionsPayload({
        actionId: ACTIONS.askMore,
        value: more?.value,
        channelId: TEST_CHANNEL,
        messageTs: answer.ts,
        inChannel: true,
      });
      payload.message = { ts: answer.ts, thread_ts: ts, text: answer.text };
      expect((await h.interact(payload)).status).toBe(200);
      const next = await nthReply(h, TEST_CHANNEL, ts, 2);
      expect(firstSection(next)).toBe(
        `In *Lumen DB Support* (followed in <#${TEST_CHANNEL}>), ${u.range.label}:`,
      );
      expect((next.blocks?.[1] as { elements: { text: string }[] }).elements[0]?.text).toBe(
        `Threads 6–${Math.min(10, f.threads)} of ${f.threads}`,
      );
    }
    // A mention's follow-up in its thread keeps what the first one set.
    await postEvent(
      h,
      mention({ user: ALICE, channel: TEST_CHANNEL, ts: nextTs(), threadTs: ts, text: "and negative ones?" }),
    );
    await h.slack.waitFor(() =>
      repliesIn(h, TEST_CHANNEL, ts).find((m) => firstSection(m).includes("negative threads")),
    );
    const last = repliesIn(h, TEST_CHANNEL, ts).find((m) => firstSection(m).includes("negative threads"));
    expect(firstSection(last ?? { blocks: [] }).split("\n")[0]).toBe(
      `In *Lumen DB Support* (followed in <#${TEST_CHANNEL}>), ${u.range.label}, negative threads:`,
    );
  });

  it("/insight ask with no question lists what it can be asked", async () => {
    const before = h.slack.responses.length;
    await h.command("ask", { user: ALICE });
    const reply = await h.slack.waitFor(() => h.slack.responses[before], { timeoutMs: 10_000 });
    expect((reply.body as { text: string }).text).toBe(
      "Ask me about the community in plain words, for example:",
    );
    expect(firstSection(reply.body as { blocks?: unknown[] })).toBe(examplesReply());
  });

  it("/insight ask answers privately: a line at once, then the answer in its place", async () => {
    const before = h.slack.responses.length;
    const res = await h.command("ask which questions are still unanswered in Lumen DB Support?", {
      user: ALICE,
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe("");
    await h.slack.waitFor(() => h.slack.responses.length >= before + 2, { timeoutMs: 15_000 });
    const [first, second] = h.slack.responses.slice(before).map((r) => r.body as Record<string, unknown>);
    expect(first).toEqual({
      response_type: "ephemeral",
      text: ":hourglass_flowing_sand: Reading the community…",
    });
    expect(second?.response_type).toBe("ephemeral");
    expect(second?.replace_original).toBe(true);
    const u = read("which questions are still unanswered?");
    expect(firstSection(second as { blocks?: unknown[] }).split("\n")[0]).toBe(
      `In *Lumen DB Support*, ${u.range.label}, unanswered questions:`,
    );
  });

  it("says the community service is not answering on a 429, and on an outage, in the thread", async () => {
    const ts = nextTs();
    h.emulator.faults.set({ rateLimit: { count: 20, retryAfterSeconds: 1 } });
    await postEvent(
      h,
      mention({ user: ALICE, channel: FAULT_CHANNEL, ts, text: "anything unanswered today?" }),
    );
    const limited = await nthReply(h, FAULT_CHANNEL, ts);
    expect(limited.text).toBe(NOT_ANSWERING);
    expect(firstSection(limited)).toBe(NOT_ANSWERING);

    h.emulator.faults.set({ down: true });
    const threadTs = nextTs();
    await postEvent(h, threadStarted({ user: ALICE, dm: DM, threadTs }));
    await postEvent(
      h,
      threadMessage({
        user: ALICE,
        dm: DM,
        threadTs,
        ts: nextTs(),
        text: "unanswered questions in Pocketbook Beta Testers",
      }),
    );
    const down = await nthReply(h, DM, threadTs);
    expect(down.text).toBe(NOT_ANSWERING);
  });

  it("ignores its own messages and answers a retried delivery once", async () => {
    const threadTs = nextTs();
    const ts = nextTs();
    const question = threadMessage({ user: ALICE, dm: DM, threadTs, ts, text: "what happened today?" });
    await postEvent(h, question);
    await postEvent(h, question); // Slack's retry of the same event
    const bot = JSON.parse(
      threadMessage({ user: "U0BOT", dm: DM, threadTs, ts: nextTs(), text: "In *X*, today:" }),
    ) as {
      event: Record<string, unknown>;
    };
    bot.event.bot_id = "B0BOT";
    await postEvent(h, JSON.stringify(bot));
    await nthReply(h, DM, threadTs);
    await new Promise((r) => setTimeout(r, 500));
    expect(repliesIn(h, DM, threadTs)).toHaveLength(1);
  });
});
