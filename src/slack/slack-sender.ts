import type { SlackApi } from "./client.js";
import { DIGEST_EVENT_TYPE, type SlackSender } from "../jobs/slack-out.js";

interface HistoryMessage {
  ts?: string;
  bot_id?: string;
  metadata?: { event_type?: string; event_payload?: { thread_id?: string } };
}

/** The Slack-out worker's view of Slack, over the app's one Slack wrapper. */
export function createSlackSender(slack: SlackApi): SlackSender {
  return {
    async post({ channel, text, blocks, metadata }) {
      const res = await slack.call<{ ts?: string }>("chat.postMessage", {
        channel,
        text,
        ...(blocks ? { blocks } : {}),
        ...(metadata ? { metadata } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
      if (!res.ts) throw new Error("chat.postMessage answered without a ts");
      return res.ts;
    },
    async update({ channel, ts, text, blocks, metadata }) {
      await slack.call("chat.update", {
        channel,
        ts,
        text,
        ...(blocks ? { blocks } : {}),
        ...(metadata ? { metadata } : {}),
      });
    },
    async findDigest(channel, threadId, sinceMs) {
      const res = await slack.call<{ messages?: HistoryMessage[] }>("conversations.history", {
        channel,
        oldest: (sinceMs / 1000).toFixed(6),
        limit: 200,
        include_all_metadata: true,
      });
      const hit = (res.messages ?? []).find(
        (m) =>
          m.metadata?.event_type === DIGEST_EVENT_TYPE && m.metadata.event_payload?.thread_id === threadId,
      );
      return hit?.ts;
    },
  };
}
