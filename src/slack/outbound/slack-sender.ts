import type { SlackApi, UploadFileArgs } from "../client.js";
import { ONLY_IF_MENTIONED } from "../direct-call.js";
import { classifySlackError, SlackCallError } from "../errors.js";
import { PER_CHANNEL_METHODS, type MethodHold } from "./method-hold.js";

/** Message metadata that marks a digest as ours, so a crashed post can be found again. */
export const DIGEST_EVENT_TYPE = "insight_thread_digest";

/** Message metadata: marks a message as ours, so a post that crashed before its ts was kept is found again. */
export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, string>;
}

export interface DigestMetadata extends MessageMetadata {
  event_type: typeof DIGEST_EVENT_TYPE;
  event_payload: { thread_id: string; group_id: string };
}

/**
 * What every sender of the app needs from Slack (cards, DMs, the batched digest, the weekly
 * summary, alerts): the one send path, implemented over the app's one Slack wrapper.
 */
export interface SlackSender {
  post(a: {
    channel: string;
    text: string;
    blocks?: unknown[];
    metadata?: MessageMetadata;
    /** Posts as a reply in this message's thread. */
    threadTs?: string;
  }): Promise<string>;
  update(a: {
    channel: string;
    ts: string;
    text: string;
    blocks?: unknown[];
    metadata?: MessageMetadata;
  }): Promise<void>;
  /** ts of our message of `eventType` whose metadata `matches`, posted in `channel` since `sinceMs`, if any. */
  findPosted(
    channel: string,
    eventType: string,
    sinceMs: number,
    matches: (payload: Record<string, unknown>) => boolean,
  ): Promise<string | undefined>;
  /** ts of our digest of `threadId` posted in `channel` since `sinceMs`, if any. */
  findDigest(channel: string, threadId: string, sinceMs: number): Promise<string | undefined>;
  /** Uploads a file (a chart) into a channel, in a thread when `threadTs` is given. */
  upload(a: UploadFileArgs): Promise<{ fileId: string }>;
  /** The DM channel with one user (conversations.open; needs `im:write`). */
  openDm(userId: string): Promise<string>;
  /** A link to one message (chat.getPermalink). */
  permalink(channel: string, ts: string): Promise<string>;
  /**
   * Until when this process knows `method` to be held after a 429 (a hold it met or read), if
   * it does: a send can wait it out before it reads and locks anything. Absent or undefined: call.
   */
  heldUntil?(method: string): number | undefined;
}

interface HistoryMessage {
  ts?: string;
  bot_id?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/**
 * The Slack-out worker's view of Slack, over the app's one Slack wrapper. With `hold`, a method
 * held after a 429 (per workspace and method) is not called: the call fails at once as rate
 * limited until the hold ends, so the job waits it out like any 429 (send-in-turn.ts).
 */
export function createSlackSender(
  api: SlackApi,
  hold?: Pick<MethodHold, "heldUntil" | "hold" | "knownUntil">,
  now: () => number = Date.now,
): SlackSender {
  const slack = hold ? heldCalls(api, hold, now) : api;
  /** `mentioning`: a text the wanted message's metadata holds; a page without it is not parsed. */
  const findPosted = async (
    channel: string,
    eventType: string,
    sinceMs: number,
    matches: (payload: Record<string, unknown>) => boolean,
    mentioning?: string,
  ): Promise<string | undefined> => {
    const res = await slack.call<{ messages?: HistoryMessage[] }>("conversations.history", {
      channel,
      oldest: (sinceMs / 1000).toFixed(6),
      limit: 200,
      include_all_metadata: true,
      ...(mentioning !== undefined ? { [ONLY_IF_MENTIONED]: mentioning } : {}),
    });
    const hit = (res.messages ?? []).find(
      (m) => m.metadata?.event_type === eventType && matches(m.metadata.event_payload ?? {}),
    );
    return hit?.ts;
  };
  return {
    async post({ channel, text, blocks, metadata, threadTs }) {
      const res = await slack.call<{ ts?: string }>("chat.postMessage", {
        channel,
        text,
        ...(blocks ? { blocks } : {}),
        ...(metadata ? { metadata } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
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
    findPosted,
    findDigest: (channel, threadId, sinceMs) =>
      findPosted(channel, DIGEST_EVENT_TYPE, sinceMs, (p) => p.thread_id === threadId, threadId),
    upload: (a) => api.uploadFile(a),
    async openDm(userId) {
      const res = await slack.call<{ channel?: { id?: string } }>("conversations.open", { users: userId });
      if (!res.channel?.id) throw new Error("conversations.open answered without a channel");
      return res.channel.id;
    },
    async permalink(channel, ts) {
      const res = await slack.call<{ permalink?: string }>("chat.getPermalink", { channel, message_ts: ts });
      if (!res.permalink) throw new Error("chat.getPermalink answered without a permalink");
      return res.permalink;
    },
    heldUntil: (method) => (PER_CHANNEL_METHODS.has(method) ? undefined : hold?.knownUntil(method, now())),
  };
}

/** `call` that honours and records holds of per-workspace methods. */
function heldCalls(
  api: SlackApi,
  hold: Pick<MethodHold, "heldUntil" | "hold">,
  now: () => number,
): Pick<SlackApi, "call"> {
  return {
    async call<T>(method: string, args: Record<string, unknown> = {}): Promise<T> {
      if (PER_CHANNEL_METHODS.has(method)) return api.call<T>(method, args);
      const until = await hold.heldUntil(method, now());
      if (until !== undefined) {
        throw new SlackCallError(method, {
          kind: "rate_limited",
          code: "ratelimited",
          retryAfterMs: until - now(),
          retryable: true,
          held: true,
        });
      }
      try {
        return await api.call<T>(method, args);
      } catch (err) {
        const c = classifySlackError(err);
        if (c.kind === "rate_limited") await hold.hold(method, now() + (c.retryAfterMs ?? 1_000), now());
        throw err;
      }
    },
  };
}
