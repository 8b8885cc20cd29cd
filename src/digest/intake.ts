import { entryVersion } from "../domain/digest-batch.js";
import { deliveryOf, type Subscription } from "../domain/subscription.js";
import type { ThreadDigest } from "../domain/thread-digest.js";
import type { PendingDigestStore } from "./pending-store.js";
import type { DigestSchedules } from "./schedules.js";

export interface DigestIntakeDeps {
  pending: Pick<PendingDigestStore, "add">;
  schedules: Pick<DigestSchedules, "ensure">;
  now?: () => number;
}

/** What routing hands a thread to when a subscription is in digest mode. */
export interface DigestIntake {
  add(sub: Subscription, digest: ThreadDigest, enrichedAtMs: number): Promise<boolean>;
}

/**
 * A matching thread of a digest-mode subscription joins the channel's pending digest
 * (latest state wins) and the channel's period gets its job scheduler if it had none.
 */
export function digestIntake(deps: DigestIntakeDeps): DigestIntake {
  const now = deps.now ?? Date.now;
  return {
    async add(sub, digest, enrichedAtMs) {
      const added = await deps.pending.add(sub.channelId, {
        digest,
        version: entryVersion(enrichedAtMs, Boolean(digest.sentiment)),
        isNew: digest.action === "created",
        firstSeenMs: now(),
      });
      await deps.schedules.ensure(sub.channelId, deliveryOf(sub).every);
      return added;
    },
  };
}
