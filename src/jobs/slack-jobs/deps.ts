import type { ThreadDigest } from "../../domain/thread-digest.js";
import type { Logger } from "../../log.js";
import type { OpsNotifier } from "../../ops/ops-notifier.js";
import type { ChannelThrottle } from "../../slack/outbound/channel-throttle.js";
import type { SlackSender } from "../../slack/outbound/slack-sender.js";
import type { StateKeys } from "../../store/keys.js";
import type { CountsDueStore } from "../../store/counts-due.js";
import type { MessageRefStore } from "../../store/message-refs.js";
import type { PendingReplies } from "../../store/pending-replies.js";
import type { RedisClient } from "../../store/redis.js";
import type { RedisRestarts } from "../../store/redis-restarts.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import type { TriageStore } from "../../store/triage.js";
import type { ReminderStore } from "../../store/reminders.js";
import type { WatchDmRefs } from "../../store/watch-dms.js";
import type { WatchPendingStore } from "../../store/watch-pending.js";
import type { WatchStore } from "../../store/watches.js";
import type { Producer, SlackJob } from "../job-types.js";
import type { MessageKind } from "../thread-messages.js";

/** Everything the Slack jobs use together; each handler takes its own `Pick` of it. */
export interface SlackJobDeps {
  /** The (channel, thread) posting lock. */
  redis: RedisClient;
  keys: Pick<StateKeys, "lock">;
  refs: Pick<
    MessageRefStore,
    "get" | "postingSince" | "setIfNewer" | "markPosting" | "unmarkPosting" | "setCard" | "noteChannel"
  >;
  triage: Pick<TriageStore, "get" | "followersOf" | "noteCard" | "followersTold" | "noteFollowersTold">;
  /** Reminders (`digest.remind`): read when one falls due, forgotten once sent. */
  reminders: Pick<ReminderStore, "get" | "remove">;
  /** Personal watches' DMs (slack-jobs/watch-*.ts); a reminder set on a watch DM reads that DM's card. */
  watchDms: Pick<
    WatchDmRefs,
    "get" | "claim" | "release" | "set" | "getGathered" | "replaceGathered" | "setGathered"
  >;
  /** The watch a DM matched (its words head the DM). */
  watches: Pick<WatchStore, "get" | "list">;
  /** Matches waiting for a person's daily DM or the end of their quiet hours. */
  watchPending: Pick<WatchPendingStore, "add" | "takeDue">;
  replies: Pick<PendingReplies, "peek" | "drop">;
  /** Where DMs to followers and further reply batches are queued (a getter: see `healingQueue`). */
  slackQueue: () => Producer<SlackJob>;
  /**
   * Where a counts window's edits go (counts-due.ts): sent at once when the channel's turn is
   * now, else queued (send-now.ts); absent: `slackQueue`.
   */
  countsEdits?: () => Producer<SlackJob>;
  /** The cards whose counts windows end at one time (counts-due.ts). */
  countsDue: Pick<CountsDueStore, "take" | "done">;
  /** The thread's current counts and last activity from the listing (the one source `threads` shows too). */
  counts: (
    groupId: string,
    threadId: string,
  ) => Promise<Pick<ThreadDigest, "messageCount" | "participantCount" | "lastMessageDate"> | undefined>;
  /**
   * The kinds of a thread's new messages, from the message listing (the webhook does not mark
   * bots): `--replies on` leaves bots and system messages out. Absent: not checked.
   */
  messageKinds?: (
    groupId: string,
    threadId: string,
    messageIds: readonly string[],
  ) => Promise<ReadonlyMap<string, MessageKind>>;
  throttle: Pick<ChannelThrottle, "reserve" | "pushBack">;
  subscriptions: Pick<SubscriptionStore, "get" | "pauseChannel">;
  ops: Pick<OpsNotifier, "alert">;
  sender: SlackSender;
  /** After a Redis restart: where to look in Slack for a first post whose record was lost. */
  restarts?: Pick<RedisRestarts, "lookBackSince">;
  logger: Logger;
  now?: () => number;
  lockTtlMs?: number;
}
