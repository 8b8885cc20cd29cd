import type { ThreadDigest } from "../../domain/thread-digest.js";
import type { Logger } from "../../log.js";
import type { OpsNotifier } from "../../ops/ops-notifier.js";
import type { ChannelThrottle } from "../../slack/outbound/channel-throttle.js";
import type { SlackSender } from "../../slack/outbound/slack-sender.js";
import type { StateKeys } from "../../store/keys.js";
import type { MessageRefStore } from "../../store/message-refs.js";
import type { PendingReplies } from "../../store/pending-replies.js";
import type { RedisClient } from "../../store/redis.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import type { TriageStore } from "../../store/triage.js";
import type { Producer, SlackJob } from "../job-types.js";

/** Everything the Slack jobs use together; each handler takes its own `Pick` of it. */
export interface SlackJobDeps {
  /** The (channel, thread) posting lock. */
  redis: RedisClient;
  keys: Pick<StateKeys, "lock">;
  refs: Pick<MessageRefStore, "get" | "postingSince" | "setIfNewer" | "markPosting" | "setCard">;
  triage: Pick<TriageStore, "get" | "followersOf" | "noteCard">;
  replies: Pick<PendingReplies, "peek" | "drop">;
  /** Where DMs to followers and further reply batches are queued (a getter: see `healingQueue`). */
  slackQueue: () => Producer<SlackJob>;
  /** The thread's current counts from the listing (the one source `threads` shows too). */
  counts: (
    groupId: string,
    threadId: string,
  ) => Promise<Pick<ThreadDigest, "messageCount" | "participantCount"> | undefined>;
  throttle: Pick<ChannelThrottle, "reserve" | "pushBack">;
  subscriptions: Pick<SubscriptionStore, "get" | "pauseChannel">;
  ops: Pick<OpsNotifier, "alert">;
  sender: SlackSender;
  logger: Logger;
  now?: () => number;
  lockTtlMs?: number;
}
