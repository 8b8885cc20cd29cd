import type {
  AssistantConfig,
  AssistantThreadStartedMiddleware,
  AssistantUserMessageMiddleware,
} from "@slack/bolt";
import { plainText } from "../slack/mrkdwn.js";
import { askQuestion } from "./ask-question.js";
import type { AskDeps, AskDepsOf } from "./deps.js";
import { suggestedPrompts } from "./suggested-prompts.js";

/*
 * Slack's assistant surface through Bolt's Assistant class: a thread starts with prompts drawn
 * from the workspace's groups; each question sets a status at once, titles the thread the first
 * time, and is answered in the thread. Slack calls go through the app's one wrapper (counted,
 * logged, classified), not Bolt's client; the thread's context lives in Redis, not in message
 * metadata (Bolt's default store rewrites the first message at every context change).
 */

/** What Slack shows under the thread while the answer is computed ("Insight Relay is reading…"). */
export const READING_STATUS = "is reading the community…";
const TITLE_MAX = 80;
const PROMPTS_TITLE = "Ask about the community";

type ThreadStartedDeps = Pick<AskDeps, "conversations" | "subscriptions" | "slack" | "logger">;

/** Prompts from the groups of the channel the thread was opened in first, then the workspace's. */
export function threadStartedListener(deps: ThreadStartedDeps): AssistantThreadStartedMiddleware {
  return async ({ event }) => {
    const t = event.assistant_thread;
    const context = t.context;
    try {
      await deps.conversations.saveContext(t.channel_id, t.thread_ts, {
        channelId: context.channel_id,
        teamId: context.team_id,
        enterpriseId: context.enterprise_id ?? undefined,
      });
      const here = context.channel_id ? await deps.subscriptions.forChannel(context.channel_id) : [];
      const all = await deps.subscriptions.all();
      const names = [...here, ...all].map((s) => s.groupName || s.groupId);
      await deps.slack.call("assistant.threads.setSuggestedPrompts", {
        channel_id: t.channel_id,
        thread_ts: t.thread_ts,
        title: PROMPTS_TITLE,
        prompts: suggestedPrompts(names),
      });
    } catch (err) {
      deps.logger.warn({ err }, "assistant: starting the thread failed");
    }
  };
}

/** A person's message, not a bot's (our own answers come back as message.im events too). */
function question(
  message: unknown,
): { user: string; text: string; ts: string; threadTs: string; channel: string } | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if (m.subtype !== undefined || m.bot_id !== undefined) return undefined;
  const { user, text, ts, thread_ts: threadTs, channel } = m;
  if (
    typeof user !== "string" ||
    typeof ts !== "string" ||
    typeof threadTs !== "string" ||
    typeof channel !== "string"
  ) {
    return undefined;
  }
  return { user, text: typeof text === "string" ? text : "", ts, threadTs, channel };
}

/**
 * The status first (the first visible sign, before any other work), the title from the first
 * question, then the answer in the thread, which clears the status. A failure still answers.
 */
export function userMessageListener(deps: AskDeps): AssistantUserMessageMiddleware {
  return async ({ message }) => {
    const q = question(message);
    if (!q) return;
    const where = { channel_id: q.channel, thread_ts: q.threadTs };
    const failed = (what: string) => (err: unknown) => deps.logger.warn({ err }, `assistant: ${what} failed`);
    // A retried delivery is dropped before anything shows (one Redis SET NX, about a millisecond).
    if (!(await deps.conversations.take(q.channel, q.ts).catch(() => true))) return;
    const status = deps.slack
      .call("assistant.threads.setStatus", { ...where, status: READING_STATUS })
      .catch(failed("setStatus"));
    try {
      const title = deps.conversations
        .firstQuestion(q.channel, q.threadTs)
        .then(async (first) => {
          if (first && q.text.trim()) {
            await deps.slack.call("assistant.threads.setTitle", {
              ...where,
              title: plainText(q.text, TITLE_MAX),
            });
          }
        })
        .catch(failed("setTitle"));
      const context = await deps.conversations.context(q.channel, q.threadTs);
      const outcome = await askQuestion(deps, {
        text: q.text,
        userId: q.user,
        channelId: context?.channelId,
        conversation: { channelId: q.channel, threadTs: q.threadTs },
      });
      await status;
      await deps.slack.postMessage({ channel: q.channel, thread_ts: q.threadTs, ...outcome.reply });
      await title;
    } catch (err) {
      deps.logger.error({ err }, "assistant: answering failed");
      await status;
      await deps.slack
        .postMessage({
          channel: q.channel,
          thread_ts: q.threadTs,
          text: "Something went wrong on the app's side while answering. Try again; if it persists, tell your admin.",
        })
        .catch(failed("the failure reply"));
    }
  };
}

/** Bolt's thread-context store, over the conversation store of each request's workspace. */
export function threadContextStore(depsOf: AskDepsOf): NonNullable<AssistantConfig["threadContextStore"]> {
  const where = (payload: unknown) => {
    const p = (payload ?? {}) as Record<string, unknown>;
    const thread = (p.assistant_thread ?? {}) as Record<string, unknown>;
    const channel = thread.channel_id ?? p.channel;
    const ts = thread.thread_ts ?? p.thread_ts;
    return typeof channel === "string" && typeof ts === "string" ? { channel, ts, thread } : undefined;
  };
  return {
    async get({ payload, context }) {
      const w = where(payload);
      if (!w) return {};
      const c = await depsOf(context).conversations.context(w.channel, w.ts);
      return {
        ...(c?.channelId ? { channel_id: c.channelId } : {}),
        ...(c?.teamId ? { team_id: c.teamId } : {}),
        ...(c?.enterpriseId ? { enterprise_id: c.enterpriseId } : {}),
      };
    },
    async save({ payload, context }) {
      const w = where(payload);
      const c = (w?.thread.context ?? {}) as Record<string, unknown>;
      if (!w) return;
      const str = (v: unknown) => (typeof v === "string" ? v : undefined);
      await depsOf(context).conversations.saveContext(w.channel, w.ts, {
        channelId: str(c.channel_id),
        teamId: str(c.team_id),
        enterpriseId: str(c.enterprise_id),
      });
    },
  };
}
