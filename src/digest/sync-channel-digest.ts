import { deliveryOf } from "../domain/subscription.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import type { PendingDigestStore } from "./pending-store.js";
import { wantedSchedules, type DigestSchedules } from "./schedules.js";

export interface SyncChannelDigestDeps {
  subscriptions: Pick<SubscriptionStore, "forChannel">;
  pending: Pick<PendingDigestStore, "dropGroup">;
  schedules: Pick<DigestSchedules, "ensure" | "prune">;
}

/**
 * After a channel's subscription to a group was changed or removed: when the group is no longer
 * followed in digest mode, its pending threads are dropped (they would never be posted, only
 * wait for the key to expire); the channel keeps a period schedule for each period its active
 * digest subscriptions ask for, and no other. A paused subscription keeps its pending threads
 * (they go out once it is resumed) but needs no schedule meanwhile.
 */
export async function syncChannelDigest(
  deps: SyncChannelDigestDeps,
  channelId: string,
  groupId: string,
): Promise<void> {
  const subs = await deps.subscriptions.forChannel(channelId);
  const sub = subs.find((s) => s.groupId === groupId);
  if (!sub || deliveryOf(sub).mode !== "digest") await deps.pending.dropGroup(channelId, groupId);
  const wanted = wantedSchedules(subs).map((w) => w.every);
  for (const every of wanted) await deps.schedules.ensure(channelId, every);
  await deps.schedules.prune(channelId, wanted);
}
