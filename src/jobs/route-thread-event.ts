import { isInsightError } from "../insight/errors.js";
import type { Thread, ThreadEvent } from "../insight/schemas.js";
import { matchesFilters } from "../domain/filters.js";
import type { DigestIntake } from "../digest/intake.js";
import { buildThreadDigest, listingLagsBehind } from "../domain/thread-digest.js";
import { deliveryOf, type Subscription } from "../domain/subscription.js";
import type { Logger } from "../log.js";
import type { MessageRefStore } from "../store/message-refs.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import { jobId, type Producer, type RefreshJob, type SlackJob } from "./job-types.js";
import type { ThreadLookup } from "./thread-lookup.js";

export interface RouteDeps {
  subscriptions: Pick<SubscriptionStore, "forGroup">;
  /** Whether a channel already has a card of the thread (rule 10: it stays true when filters no longer match). */
  refs: Pick<MessageRefStore, "get" | "postingSince">;
  lookup: Pick<ThreadLookup, "find">;
  /** Getters, not the queues: see `healingQueue`. */
  slackQueue: () => Producer<SlackJob>;
  refreshQueue: () => Producer<RefreshJob>;
  ops: Pick<OpsNotifier, "insightAuthorized" | "insightUnauthorized">;
  logger: Logger;
  /** Delays before looking again for a sentiment the listing did not have yet. */
  refreshDelaysMs?: number[];
  /** Digest-mode subscriptions: the thread joins the channel's pending digest instead of a card. */
  digest?: Pick<DigestIntake, "add">;
}

export const DEFAULT_REFRESH_DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000];
/**
 * How many looks (the first, then refreshes) distrust a listing whose summary differs from
 * the event's. Bounded so that, should the two summaries never match (the interface does not
 * show they are worded the same), the sentiment comes minutes late rather than never.
 */
const LAG_CHECKS = 2;

export interface RouteResult {
  channels: number;
  filteredOut: number;
  /** Channels out of whose filters the thread went, whose card is edited to say so. */
  noLongerMatching?: number;
  sentimentKnown: boolean;
  listingError?: string;
  /** The listing still showed an earlier enrichment, so none of its enrichment was used. */
  listingLagging?: true;
}

/**
 * chatthread-crud -> one Slack job per subscribed channel whose filters match. The listing
 * supplies sentiment and keywords; when it cannot (not there yet, still showing an earlier
 * enrichment, or the API failed) the digest goes out without them and a refresh job looks
 * again later (rule 3: post, then edit). After LAG_CHECKS looks, a listing that still differs
 * is used as it is: its summary may just be worded differently from the webhook's.
 */
export async function routeThreadEvent(
  event: ThreadEvent,
  deps: RouteDeps,
  opts: { fresh?: boolean; notBeforeMs?: number; attempt?: number } = {},
): Promise<RouteResult> {
  const { groupId, threadId } = event.payload;
  const subs = (await deps.subscriptions.forGroup(groupId)).filter((s) => !s.paused);
  if (subs.length === 0) return { channels: 0, filteredOut: 0, sentimentKnown: false };

  let listing: Thread | undefined;
  let listingError: string | undefined;
  try {
    listing = await deps.lookup.find(groupId, threadId, {
      fresh: opts.fresh,
      notBeforeMs: Math.max(Date.parse(event.payload.timestamp), opts.notBeforeMs ?? 0),
    });
    await deps.ops.insightAuthorized();
  } catch (err) {
    listingError = isInsightError(err) ? err.code : "error";
    if (isInsightError(err) && err.code === "unauthorized") await deps.ops.insightUnauthorized();
    deps.logger.warn(
      { groupId, threadId, err },
      "thread listing unavailable; posting the digest without sentiment",
    );
  }

  const attempt = opts.attempt ?? 0;
  const delays = deps.refreshDelaysMs ?? DEFAULT_REFRESH_DELAYS_MS;
  const lagging =
    listing !== undefined &&
    attempt < Math.min(LAG_CHECKS, delays.length) &&
    listingLagsBehind(event, listing);
  if (lagging) {
    deps.logger.debug(
      { groupId, threadId, attempt },
      "thread listing still shows an earlier enrichment; posting without its sentiment and looking again",
    );
  }
  const digest = buildThreadDigest(event, lagging ? undefined : listing);
  const enrichedAtMs = Date.parse(event.payload.timestamp);
  let channels = 0;
  let filteredOut = 0;
  let noLongerMatching = 0;
  for (const sub of subs) {
    const mode = deliveryOf(sub).mode;
    // `summary` is weekly only: nothing per thread.
    if (mode === "summary") continue;
    const matches = matchesFilters(digest, sub.filters);
    // `digest` mode batches: the thread joins the channel's pending digest instead of a card.
    if (mode === "digest") {
      if (!matches || !deps.digest) {
        filteredOut++;
        continue;
      }
      channels++;
      await deps.digest.add(sub, digest, enrichedAtMs);
      continue;
    }
    if (!matches) {
      filteredOut++;
      // Rule 10: a card this channel once received is still edited to the thread's current state.
      if (!(await hasCard(deps, sub, threadId))) continue;
      noLongerMatching++;
    }
    channels++;
    await deps.slackQueue().add(
      "digest",
      {
        kind: "digest",
        channelId: sub.channelId,
        digest,
        enrichedAtMs,
        ...(matches ? {} : { noLongerMatches: true }),
      },
      // One job per rendering: repeats of the same enrichment collapse here.
      { jobId: jobId("digest", sub.channelId, threadId, enrichedAtMs, digest.sentiment ? "s" : "n") },
    );
  }

  const sentimentKnown = Boolean(digest.sentiment);
  // Filters that need the sentiment may have held the digest back: look again for those too.
  if (!sentimentKnown && attempt < delays.length) {
    await deps
      .refreshQueue()
      .add(
        "refresh",
        { event, attempt: attempt + 1 },
        { delay: delays[attempt], jobId: jobId("refresh", groupId, threadId, enrichedAtMs, attempt + 1) },
      );
  }
  return {
    channels,
    filteredOut,
    ...(noLongerMatching > 0 ? { noLongerMatching } : {}),
    sentimentKnown,
    ...(listingError ? { listingError } : {}),
    ...(lagging ? { listingLagging: true as const } : {}),
  };
}

/** A card posted (or being posted) in the subscription's channel. */
async function hasCard(deps: RouteDeps, sub: Subscription, threadId: string): Promise<boolean> {
  if (await deps.refs.get(sub.channelId, threadId)) return true;
  return (await deps.refs.postingSince(sub.channelId, threadId)) !== undefined;
}
