import type { SubscriptionFilters } from "./filters.js";

/** A channel following a chat group: what it receives and whether Slack still takes it. */
export interface Subscription {
  channelId: string;
  groupId: string;
  groupName: string;
  communityId: string | undefined;
  filters: SubscriptionFilters;
  createdBy: string;
  createdAt: string;
  /** Set when Slack refused this channel for good (archived, app removed); digests stop. */
  paused?: { code: string; at: string } | undefined;
}
