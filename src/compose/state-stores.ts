import { AlertSettingsStore } from "../alerts/settings-store.js";
import { BelowThresholdStore } from "../store/below-threshold.js";
import { PendingDigestStore } from "../digest/pending-store.js";
import { DigestSchedules } from "../digest/schedules.js";
import { JOB_DEFAULTS } from "../jobs/retry-policy.js";
import type { WorkspaceQueues } from "../workspaces/workspace-queues.js";
import { ChannelThrottle } from "../slack/outbound/channel-throttle.js";
import { DeliveryHealthStore } from "../store/delivery-health.js";
import type { StateKeys } from "../store/keys.js";
import { MessageRefStore, type LegacyRefs } from "../store/message-refs.js";
import { PendingReplies } from "../store/pending-replies.js";
import type { RedisClient } from "../store/redis.js";
import { SubscriptionStore } from "../store/subscriptions.js";
import { ThreadActivityStore } from "../store/thread-activity.js";
import { CountsDueStore } from "../store/counts-due.js";
import { TriageStore } from "../store/triage.js";
import { ReminderStore } from "../store/reminders.js";
import { WatchDmRefs } from "../store/watch-dms.js";
import { WatchPendingStore } from "../store/watch-pending.js";
import { WatchStore } from "../store/watches.js";
import { WeeklySchedules } from "../weekly/schedules.js";

/** The stores of one workspace, over its keys (workspace-services.ts). */
export type StateStores = ReturnType<typeof stateStores>;

/** The stores of one workspace's Redis prefix (the deployment's own, for the single workspace). */
export function stateStores(o: {
  redis: RedisClient;
  keys: StateKeys;
  queues: Pick<WorkspaceQueues, "weekly" | "digest">;
  defaultTimezone: string;
  channelGapMs?: number | undefined;
  /** Shared by every workspace's refs: cleared once the start migration has moved the old ones. */
  legacyRefs?: LegacyRefs;
}) {
  const { redis, keys, queues } = o;
  const subscriptions = new SubscriptionStore(redis, keys);
  const schedules = new WeeklySchedules(() => queues.weekly, redis, keys.schedules, JOB_DEFAULTS.weekly);
  // A channel's zone is its weekly schedule's (docs/using.md: digest periods align on it).
  const timeZoneOf = async (channelId: string) =>
    (await schedules.get(channelId))?.timeZone ?? o.defaultTimezone;
  return {
    subscriptions,
    refs: new MessageRefStore(redis, keys, o.legacyRefs ? { legacy: o.legacyRefs } : {}),
    triage: new TriageStore(redis, keys),
    replies: new PendingReplies(redis, keys),
    /** Threads held back by a channel's thresholds alone, counted again as they grow. */
    belowThreshold: new BelowThresholdStore(redis, keys),
    /** When each thread's last message was routed: what a counts edit's listing read must be newer than. */
    threadActivity: new ThreadActivityStore(redis, keys),
    countsDue: new CountsDueStore(redis, keys),
    health: new DeliveryHealthStore(redis, keys),
    schedules,
    digest: {
      pending: new PendingDigestStore(redis, keys),
      schedules: new DigestSchedules({
        queue: () => queues.digest,
        redis,
        keys,
        timeZoneOf,
        subscriptions,
        jobOptions: JOB_DEFAULTS.digest,
      }),
      timeZoneOf,
    },
    alerts: new AlertSettingsStore(redis, keys),
    throttle: new ChannelThrottle(redis, keys, o.channelGapMs),
    // Personal (issue 36): each person's watches, their DMs and pending matches, reminders.
    watches: new WatchStore(redis, keys),
    watchDms: new WatchDmRefs(redis, keys),
    watchPending: new WatchPendingStore(redis, keys),
    reminders: new ReminderStore(redis, keys),
  };
}
