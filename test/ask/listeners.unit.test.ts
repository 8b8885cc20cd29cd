import { describe, expect, it } from "vitest";
import { READING_STATUS, userMessageListener } from "../../src/ask/assistant-listeners.js";
import type { AskDeps } from "../../src/ask/deps.js";
import { mentionListener } from "../../src/ask/mention-listener.js";
import { silentLogger } from "../../src/log.js";

/*
 * The listeners with a dummy of their narrow deps (as Bolt's own tests use dummy args): what they
 * do when the world fails, which the end-to-end tests cannot easily arrange.
 */

type Call = [string, Record<string, unknown>];

function fakeDeps(o: { contextFails?: boolean; takeFails?: boolean } = {}): { deps: AskDeps; calls: Call[] } {
  const calls: Call[] = [];
  const deps: AskDeps = {
    insight: {
      getChatGroup: async () => ({ _id: "g1", name: "Support" }),
      listCommunities: async () => [],
      listChatGroups: async () => [],
    },
    reader: {
      threadsSince: async () => ({ threads: [], capped: false }),
      topicThreads: async () => ({ ids: [], capped: false }),
    },
    subscriptions: {
      forChannel: async () => [],
      all: async () => [
        {
          channelId: "C1",
          groupId: "g1",
          groupName: "Support",
          communityId: undefined,
          filters: {},
          createdBy: "U0",
          createdAt: "2025-01-01T00:00:00.000Z",
        },
      ],
    },
    conversations: {
      context: async () => {
        if (o.contextFails) throw new Error("Redis is down");
        return undefined;
      },
      saveContext: async () => undefined,
      memory: async () => undefined,
      remember: async () => undefined,
      firstQuestion: async () => true,
      take: async () => {
        if (o.takeFails) throw new Error("Redis is down");
        return true;
      },
    },
    timeZones: { of: async () => "UTC" },
    slack: {
      call: async (method: string, args?: Record<string, unknown>) => {
        calls.push([method, args ?? {}]);
        return { ok: true };
      },
      postMessage: async (args) => {
        calls.push(["chat.postMessage", { ...args }]);
        return { channel: args.channel, ts: "9.9" };
      },
    } as AskDeps["slack"],
    reportInsightError: async () => undefined,
    logger: silentLogger,
    now: () => Date.parse("2025-11-26T15:00:00Z"),
  };
  return { deps, calls };
}

const userMessage = (message: Record<string, unknown>) =>
  ({ message }) as unknown as Parameters<ReturnType<typeof userMessageListener>>[0];
const appMention = (event: Record<string, unknown>) =>
  ({ event }) as unknown as Parameters<ReturnType<typeof mentionListener>>[0];

describe("userMessageListener", () => {
  const question = {
    type: "message",
    user: "U1",
    text: "what happened today?",
    ts: "2.2",
    thread_ts: "1.1",
    channel: "D1",
  };

  it("sets the status, titles the thread, then answers in it, in that order", async () => {
    const { deps, calls } = fakeDeps();
    await userMessageListener(deps)(userMessage(question));
    expect(calls.map(([m]) => m)).toEqual([
      "assistant.threads.setStatus",
      "assistant.threads.setTitle",
      "chat.postMessage",
    ]);
    expect(calls[0]?.[1]).toEqual({ channel_id: "D1", thread_ts: "1.1", status: READING_STATUS });
    expect(calls[2]?.[1].thread_ts).toBe("1.1");
    expect(calls[2]?.[1].text).toBe(
      "In Support (the group this workspace follows), today (Nov 26): 0 threads",
    );
  });

  it("never leaves the thread silent: a failure is said in it", async () => {
    const { deps, calls } = fakeDeps({ contextFails: true });
    await userMessageListener(deps)(userMessage(question));
    expect(calls.at(-1)).toEqual([
      "chat.postMessage",
      {
        channel: "D1",
        thread_ts: "1.1",
        text: "Something went wrong on the app's side while answering. Try again; if it persists, tell your admin.",
      },
    ]);
  });

  it("answers even when it cannot check for a retried delivery", async () => {
    const { deps, calls } = fakeDeps({ takeFails: true });
    await userMessageListener(deps)(userMessage(question));
    expect(calls.map(([m]) => m)).toContain("chat.postMessage");
  });

  it("ignores bots (its own answers come back as message.im) and edits", async () => {
    const { deps, calls } = fakeDeps();
    await userMessageListener(deps)(userMessage({ ...question, bot_id: "B1" }));
    await userMessageListener(deps)(userMessage({ ...question, subtype: "message_changed" }));
    await userMessageListener(deps)(userMessage({ ...question, thread_ts: undefined }));
    expect(calls).toEqual([]);
  });
});

describe("mentionListener", () => {
  it("answers in a thread under the mention, and ignores bots", async () => {
    const { deps, calls } = fakeDeps();
    const mention = { type: "app_mention", user: "U1", text: "<@U0BOT> hi", ts: "5.5", channel: "C9" };
    await mentionListener(deps)(appMention({ ...mention, bot_id: "B1" }));
    expect(calls).toEqual([]);
    await mentionListener(deps)(appMention(mention));
    expect(calls.at(-1)?.[1]).toMatchObject({
      channel: "C9",
      thread_ts: "5.5",
      text: "Ask me about the community in plain words, for example:",
    });
  });
});
