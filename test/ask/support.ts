import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { EmulatedThread } from "../../dev/emulator/index.js";
import type { StoredMessage } from "../../dev/slack-standin/server.js";
import type { AskRange } from "../../src/ask/time-range.js";
import { questionStatusLabel, sentimentLabel } from "../../src/domain/sentiment.js";
import { messageText, TEST_SIGNING_SECRET, type Harness } from "../helpers/app-harness.js";
import { postSigned } from "../helpers/slack-signing.js";

const fixtures = join(import.meta.dirname, "..", "fixtures", "slack");

export type SlackEventName =
  "assistant_thread_started" | "assistant_thread_context_changed" | "message.im" | "app_mention";

/**
 * One of Slack's documented event envelopes (test/fixtures/slack/) with this test's team, ids
 * and event fields in place of the samples'.
 */
export function slackEvent(
  name: SlackEventName,
  o: { teamId?: string; event: Record<string, unknown>; eventId?: string },
): string {
  const envelope = JSON.parse(readFileSync(join(fixtures, `${name}.json`), "utf8")) as {
    team_id: string;
    api_app_id: string;
    event: Record<string, unknown>;
    event_id: string;
    event_time: number;
  };
  const team = o.teamId ?? "T0STANDIN";
  const event = { ...envelope.event, ...o.event };
  if ("team" in event) event.team = team;
  return JSON.stringify({
    ...envelope,
    team_id: team,
    api_app_id: "A0STANDIN",
    event,
    event_id: o.eventId ?? `Ev${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
  });
}

/** Posts an Events API body signed as Slack signs it; Bolt acks at once. */
export async function postEvent(h: Harness, body: string): Promise<{ status: number; body: string }> {
  return postSigned(`${h.baseUrl}/slack/events`, TEST_SIGNING_SECRET, body, "application/json");
}

/** An assistant thread started by `user` while viewing `contextChannel`. */
export function threadStarted(o: {
  user: string;
  dm: string;
  threadTs: string;
  contextChannel?: string;
  teamId?: string;
}): string {
  return slackEvent("assistant_thread_started", {
    teamId: o.teamId,
    event: {
      assistant_thread: {
        user_id: o.user,
        context: o.contextChannel ? { channel_id: o.contextChannel, team_id: o.teamId ?? "T0STANDIN" } : {},
        channel_id: o.dm,
        thread_ts: o.threadTs,
      },
      event_ts: o.threadTs,
    },
  });
}

/** A person's message in an assistant thread (message.im with thread_ts). */
export function threadMessage(o: {
  user: string;
  dm: string;
  threadTs: string;
  ts: string;
  text: string;
  teamId?: string;
}): string {
  return slackEvent("message.im", {
    teamId: o.teamId,
    event: {
      user: o.user,
      text: o.text,
      ts: o.ts,
      thread_ts: o.threadTs,
      channel: o.dm,
      event_ts: o.ts,
      client_msg_id: `msg-${o.ts}`,
    },
  });
}

export function mention(o: {
  user: string;
  channel: string;
  ts: string;
  text: string;
  threadTs?: string;
  teamId?: string;
}): string {
  return slackEvent("app_mention", {
    teamId: o.teamId,
    event: {
      user: o.user,
      text: `<@U0BOT> ${o.text}`,
      ts: o.ts,
      channel: o.channel,
      event_ts: o.ts,
      ...(o.threadTs ? { thread_ts: o.threadTs } : {}),
    },
  });
}

/** The app's replies in one thread of the stand-in, oldest first. */
export function repliesIn(h: Harness, channel: string, threadTs: string): StoredMessage[] {
  return h.slack.messages(channel).filter((m) => m.thread_ts === threadTs);
}

export async function nthReply(h: Harness, channel: string, threadTs: string, n = 1): Promise<StoredMessage> {
  return h.slack.waitFor(() => repliesIn(h, channel, threadTs)[n - 1], { timeoutMs: 15_000 });
}

export const shownText = (m: { text: string; blocks?: unknown[] }) => messageText(m);

/** The first section's text of a message: the understood line, then the figures. */
export function firstSection(m: { blocks?: unknown[] }): string {
  const block = (m.blocks ?? [])[0] as { text?: { text?: string } } | undefined;
  return block?.text?.text ?? "";
}

/**
 * The figures counted straight from the emulator's threads (the listings' source), the way a
 * reader of the listing would: last activity in the period, the filters applied.
 */
export function expectedFigures(
  threads: readonly EmulatedThread[],
  range: Pick<AskRange, "from" | "to" | "previous">,
  keep: (t: EmulatedThread) => boolean = () => true,
): { threads: number; messages: number; previous: number; negative: number; unanswered: number } {
  const inside = (t: EmulatedThread, w: { from: number; to: number }) => {
    const at = Date.parse(t.lastMessageDate);
    return at >= w.from && at <= w.to;
  };
  const now = threads.filter((t) => keep(t) && inside(t, range));
  return {
    threads: now.length,
    messages: now.reduce((n, t) => n + t.messageCount, 0),
    previous: threads.filter((t) => keep(t) && inside(t, range.previous)).length,
    negative: now.filter((t) => sentimentLabel(t.sentiment).tone === "negative").length,
    unanswered: now.filter(
      (t) => t.isQuestionLed && questionStatusLabel(t.questionResponseStatus).status !== "answered",
    ).length,
  };
}
