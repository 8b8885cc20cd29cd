import type { SubscriptionFilters } from "./filters.js";

/** `realtime`: one card per thread; `digest`: one batched message per period; `summary`: weekly only. */
export const DELIVERY_MODES = ["realtime", "digest", "summary"] as const;
export type DeliveryMode = (typeof DELIVERY_MODES)[number];

/** The periods of `digest` mode, aligned on the channel's time zone. */
export const DIGEST_PERIODS = ["1h", "2h", "4h", "8h", "12h", "24h"] as const;
export type DigestEvery = (typeof DIGEST_PERIODS)[number];

export const CARD_FORMATS = ["full", "compact"] as const;
export type CardFormat = (typeof CARD_FORMATS)[number];

/** How a subscription delivers, every field filled in. */
export interface Delivery {
  mode: DeliveryMode;
  every: DigestEvery;
  format: CardFormat;
  /** New messages of a posted thread go as replies under its card. */
  replies: boolean;
}

export const DEFAULT_DELIVERY: Delivery = { mode: "realtime", every: "24h", format: "full", replies: false };

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
  /**
   * Delivery settings; absent fields take `DEFAULT_DELIVERY` (subscriptions stored before
   * modes existed have none and stay realtime, full-size cards, no replies).
   */
  delivery?: Partial<Delivery> | undefined;
}

/** A subscription's delivery settings with the defaults filled in. */
export function deliveryOf(sub: Pick<Subscription, "delivery">): Delivery {
  return { ...DEFAULT_DELIVERY, ...sub.delivery };
}
