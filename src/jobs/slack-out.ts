import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import type { RedisClient as Redis } from "../store/redis.js";
import type { Logger } from "../log.js";
import { classifySlackError } from "../slack/errors.js";
import type { ChannelThrottle } from "../slack/outbound/channel-throttle.js";
import { sendInTurn, type WaitReason } from "../slack/outbound/send-in-turn.js";
import type { DigestMetadata, SlackSender } from "../slack/outbound/slack-sender.js";
import { DIGEST_EVENT_TYPE } from "../slack/outbound/slack-sender.js";
import { renderThreadDigest } from "../slack/render/thread-digest.js";
import type { StateKeys } from "../store/keys.js";
import { tryLock } from "../store/lock.js";
import { digestVersion, type MessageRefStore } from "../store/message-refs.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import { channelIncident, type OpsNotifier } from "../ops/ops-notifier.js";
import type { SlackJob } from "./queues.js";

export interface SlackOutDeps {
  /** The (channel, thread) posting lock. */
  redis: Redis;
  keys: Pick<StateKeys, "lock">;
  refs: Pick<MessageRefStore, "get" | "postingSince" | "setIfNewer" | "clearPosting" | "markPosting">;
  throttle: Pick<ChannelThrottle, "reserve" | "pushBack">;
  subscriptions: Pick<SubscriptionStore, "get" | "pauseChannel">;
  ops: Pick<OpsNotifier, "alert">;
  sender: SlackSender;
  logger: Logger;
  now?: () => number;
  lockTtlMs?: number;
}

export type SlackOutcome = "posted" | "updated" | "stale" | "paused" | "sent";

/** Slack errors that mean "this channel will not take our messages" (pause its subscriptions). */
const CHANNEL_GONE = new Set(["channel_not_found", "not_in_channel", "is_archived"]);

async function delay(job: Job<SlackJob>, token: string | undefined, untilMs: number): Promise<never> {
  await job.moveToDelayed(Math.ceil(untilMs), token);
  throw new DelayedError();
}

/**
 * One Slack effect, idempotently: a digest is posted once per (channel, thread) and edited
 * in place afterwards; an older enrichment never overwrites a newer one. Sends are spaced per
 * channel; Slack's 429 delays the job (no attempt spent); channels Slack refuses for good are
 * paused and reported.
 */
export async function processSlackJob(
  job: Job<SlackJob>,
  token: string | undefined,
  deps: SlackOutDeps,
): Promise<SlackOutcome> {
  const now = deps.now ?? Date.now;
  const data = job.data;
  const channel = data.channelId;

  if (data.kind === "digest") {
    // Unsubscribed or paused while this job waited for its slot: nothing to post.
    const sub = await deps.subscriptions.get(channel, data.digest.groupId);
    if (!sub || sub.paused) return "stale";
    const ref = await deps.refs.get(channel, data.digest.threadId);
    const version = digestVersion(data.enrichedAtMs, Boolean(data.digest.sentiment));
    if (ref && digestVersion(ref.enrichedAtMs, ref.hasSentiment) >= version) return "stale";
  }

  // The slot is reserved once and kept in the job's data, so a job delayed to it keeps its turn.
  const wait = async (untilMs: number, reason: WaitReason): Promise<void> => {
    const slotAt = reason === "slot" ? untilMs : undefined;
    if (job.data.slotAt !== slotAt) await job.updateData({ ...job.data, slotAt });
    await delay(job, token, untilMs);
  };
  return sendInTurn<SlackOutcome>({
    channel,
    throttle: deps.throttle,
    now,
    wait,
    ...(data.slotAt !== undefined ? { reservedSlot: data.slotAt } : {}),
    earlyMs: 25,
    logger: deps.logger.child({ jobId: job.id }),
    call: async () => {
      if (data.kind === "notice") {
        await deps.sender.post({ channel, text: data.text });
        return "sent";
      }
      return sendDigest(job, token, deps, now);
    },
    onPermanent: async (c) => {
      if (CHANNEL_GONE.has(c.code) && data.kind === "digest") {
        const paused = await deps.subscriptions.pauseChannel(channel, c.code, new Date(now()));
        await deps.ops.alert(
          channelIncident(channel, c.code),
          `:pause_button: Digests to <#${channel}> are paused: Slack answered \`${c.code}\`. ` +
            `${paused.length} subscription(s) paused. Invite the app to the channel (or unarchive it), then run \`/insight subscribe\` again there.`,
        );
        return "paused";
      }
      if (data.kind === "digest") {
        await deps.ops.alert(
          `slack-${c.code}`,
          `:warning: Slack refused a digest with \`${c.code}\`. Check SLACK_BOT_TOKEN and the app's scopes.`,
        );
      }
      throw new UnrecoverableError(`Slack refused the message: ${c.code}`);
    },
    // invalid_blocks and the like fail the same way every time: no ten retries for them.
    onRequestError: async (c) => {
      throw new UnrecoverableError(`Slack refused the message: ${c.code}`);
    },
  });
}

async function sendDigest(
  job: Job<SlackJob>,
  token: string | undefined,
  deps: SlackOutDeps,
  now: () => number,
): Promise<SlackOutcome> {
  if (job.data.kind !== "digest") throw new Error("not a digest job");
  const { channelId: channel, digest, enrichedAtMs } = job.data;
  const threadId = digest.threadId;
  const release = await tryLock(
    deps.redis,
    deps.keys.lock(`digest:${channel}:${threadId}`),
    deps.lockTtlMs ?? 15_000,
  );
  // Another job is posting this thread to this channel right now: come back shortly.
  if (!release) await delay(job, token, now() + 300 + Math.random() * 400);
  try {
    const hasSentiment = Boolean(digest.sentiment);
    let ref = await deps.refs.get(channel, threadId);
    if (
      ref &&
      digestVersion(ref.enrichedAtMs, ref.hasSentiment) >= digestVersion(enrichedAtMs, hasSentiment)
    ) {
      return "stale";
    }
    const { text, blocks } = renderThreadDigest(digest);
    const metadata: DigestMetadata = {
      event_type: DIGEST_EVENT_TYPE,
      event_payload: { thread_id: threadId, group_id: digest.groupId },
    };

    // A previous attempt may have posted and died before recording the ts: look for it.
    if (!ref) {
      const since = await deps.refs.postingSince(channel, threadId);
      if (since !== undefined) {
        const ts = await deps.sender.findDigest(channel, threadId, since - 5_000).catch((err: unknown) => {
          // History unreadable (scope missing, Slack down): post afresh, as when nothing is found.
          deps.logger.debug({ err, channel, threadId }, "could not look for an earlier post of this digest");
          return undefined;
        });
        if (ts) ref = { ts, enrichedAtMs: 0, hasSentiment: false, groupId: digest.groupId };
      }
    }

    let outcome: SlackOutcome;
    let ts: string;
    if (ref) {
      try {
        await deps.sender.update({ channel, ts: ref.ts, text, blocks, metadata });
        ts = ref.ts;
        outcome = "updated";
      } catch (err) {
        // The message was deleted in Slack: post a fresh one.
        if (classifySlackError(err).code !== "message_not_found") throw err;
        ts = await postMarked(deps, channel, threadId, text, blocks, metadata, now);
        outcome = "posted";
      }
    } else {
      ts = await postMarked(deps, channel, threadId, text, blocks, metadata, now);
      outcome = "posted";
    }
    await deps.refs.setIfNewer(channel, threadId, {
      ts,
      enrichedAtMs,
      hasSentiment,
      groupId: digest.groupId,
    });
    await deps.refs.clearPosting(channel, threadId);
    deps.logger.info({ jobId: job.id, channel, threadId, ts, outcome }, "digest delivered");
    return outcome;
  } finally {
    await release?.();
  }
}

async function postMarked(
  deps: SlackOutDeps,
  channel: string,
  threadId: string,
  text: string,
  blocks: unknown[],
  metadata: DigestMetadata,
  now: () => number,
): Promise<string> {
  await deps.refs.markPosting(channel, threadId, new Date(now()));
  return deps.sender.post({ channel, text, blocks, metadata });
}
