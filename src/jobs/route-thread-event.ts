import { isInsightError } from "../insight/errors.js";
import type { Thread, ThreadEvent } from "../insight/schemas.js";
import { failsOnlyOnThresholds, matchesFilters } from "../domain/filters.js";
import type { DigestIntake } from "../digest/intake.js";
import { buildThreadDigest, listingLagsBehind, type ThreadDigest } from "../domain/thread-digest.js";
import { deliveryOf, type Subscription } from "../domain/subscription.js";
import type { Logger } from "../log.js";
import type { MessageRefStore } from "../store/message-refs.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import type { OpsNotifier } from "../ops/ops-notifier.js";
import type { BelowThresholdStore } from "../store/below-threshold.js";
import { jobId, type Producer, type RefreshJob, type SlackJob } from "./job-types.js";
import type { ThreadCounts } from "./thread-messages.js";
import type { ThreadLookup } from "./thread-lookup.js";
import { routeWatches, type RouteWatchDeps } from "./route-watches.js";

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
  /**
   * Short looks at the listing before a thread goes out without its sentiment (rule 10: the
   * first post carries everything known; a few seconds' wait beats a card edited silently later).
   */
  firstPostWaitsMs?: number[];
  /** Personal watches: DMs for the people whose watches match (route-watches.ts). */
  watches?: RouteWatchDeps;
  /** Threads held back only by a channel's thresholds, kept to be counted again as they grow. */
  belowThreshold?: Pick<BelowThresholdStore, "hold" | "drop">;
  /** A thread's counts from its message listing, when a held thread is counted again. */
  countThread?: (groupId: string, threadId: string) => Promise<ThreadCounts | undefined>;
}

export const DEFAULT_REFRESH_DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000];
/** The listing usually shows an enrichment within seconds: two short looks, about 10 s in all. */
export const DEFAULT_FIRST_POST_WAITS_MS = [3_000, 7_000];
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
  /** Nothing went out yet: the listing is looked at again in a few seconds (the first post waits for the sentiment). */
  waiting?: true;
  /** Channels that hold the thread back only by their thresholds (it is counted again as it grows). */
  belowThreshold?: number;
  /** Watch DMs queued (a first match, an edit, or a line of a gathered DM). */
  watchDeliveries?: number;
}

export interface RouteOptions {
  fresh?: boolean | undefined;
  notBeforeMs?: number | undefined;
  /** The later looks for a sentiment made so far (refresh jobs). */
  attempt?: number | undefined;
  /** The short looks made so far before the first post. */
  waited?: number | undefined;
  /** A thread held back by thresholds, counted again: its counts from the message listing. */
  recount?: boolean | undefined;
}

/**
 * chatthread-crud -> one Slack job per subscribed channel whose filters match, and one per
 * person whose watch matches. The listing supplies sentiment and keywords; when it cannot (not
 * there yet, still showing an earlier enrichment, or the API failed) the routing waits a few
 * seconds and looks again (`firstPostWaitsMs`: the first post carries everything known, rule
 * 10), then sends without them, and a refresh job looks again later (rule 3: post, then edit).
 * After LAG_CHECKS looks, a listing that still differs is used as it is: its summary may just be
 * worded differently from the webhook's. A thread that a channel holds back only by its
 * thresholds is kept to be counted again when messages arrive (route-message-event.ts).
 */
export async function routeThreadEvent(
  event: ThreadEvent,
  deps: RouteDeps,
  opts: RouteOptions = {},
): Promise<RouteResult> {
  const { groupId, threadId } = event.payload;
  const subs = (await deps.subscriptions.forGroup(groupId)).filter((s) => !s.paused);
  // A group no channel follows still matters to the people whose watches cover it.
  const watched = subs.length === 0 && deps.watches ? await deps.watches.watches.covers(groupId) : false;
  if (subs.length === 0 && !watched) return { channels: 0, filteredOut: 0, sentimentKnown: false };

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
  let digest = buildThreadDigest(event, lagging ? undefined : listing);
  const enrichedAtMs = Date.parse(event.payload.timestamp);
  const sentimentKnown = Boolean(digest.sentiment);

  // Rule 10: the first post carries everything known. A short, bounded wait for the listing
  // beats a card without its sentiment that is edited silently a little later.
  const waited = opts.waited ?? 0;
  const waits = deps.firstPostWaitsMs ?? DEFAULT_FIRST_POST_WAITS_MS;
  if (!sentimentKnown && attempt === 0 && !opts.recount && waited < waits.length) {
    await deps
      .refreshQueue()
      .add(
        "refresh",
        { event, attempt: 0, waited: waited + 1 },
        { delay: waits[waited], jobId: jobId("refresh-wait", groupId, threadId, enrichedAtMs, waited + 1) },
      );
    return {
      channels: 0,
      filteredOut: 0,
      sentimentKnown,
      waiting: true,
      ...(listingError ? { listingError } : {}),
      ...(lagging ? { listingLagging: true as const } : {}),
    };
  }
  if (opts.recount && deps.countThread)
    digest = withCounts(digest, await deps.countThread(groupId, threadId));

  let channels = 0;
  let filteredOut = 0;
  let noLongerMatching = 0;
  let belowThreshold = 0;
  for (const sub of subs) {
    const mode = deliveryOf(sub).mode;
    // `summary` is weekly only: nothing per thread.
    if (mode === "summary") continue;
    const matches = matchesFilters(digest, sub.filters);
    // `digest` mode batches: the thread joins the channel's pending digest instead of a card.
    if (mode === "digest") {
      if (!matches || !deps.digest) {
        if (failsOnlyOnThresholds(digest, sub.filters)) belowThreshold++;
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
      if (!(await hasCard(deps, sub, threadId))) {
        if (failsOnlyOnThresholds(digest, sub.filters)) belowThreshold++;
        continue;
      }
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
  if (deps.belowThreshold) {
    // Counted again when messages arrive; once no channel holds it back, no longer.
    if (belowThreshold > 0) await deps.belowThreshold.hold(event);
    else if (opts.recount) await deps.belowThreshold.drop(threadId);
  }
  const watchDeliveries = deps.watches ? await routeWatches(deps.watches, deps.slackQueue, digest) : 0;

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
    ...(belowThreshold > 0 ? { belowThreshold } : {}),
    ...(watchDeliveries > 0 ? { watchDeliveries } : {}),
  };
}

/** The digest with the counts of the message listing, where those are higher (they count what came since). */
function withCounts(digest: ThreadDigest, counts: ThreadCounts | undefined): ThreadDigest {
  if (!counts) return digest;
  const max = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : Math.max(a, b);
  return {
    ...digest,
    messageCount: max(digest.messageCount, counts.messageCount),
    participantCount: max(digest.participantCount, counts.participantCount),
  };
}

/** A card posted (or being posted) in the subscription's channel. */
async function hasCard(deps: RouteDeps, sub: Subscription, threadId: string): Promise<boolean> {
  if (await deps.refs.get(sub.channelId, threadId)) return true;
  return (await deps.refs.postingSince(sub.channelId, threadId)) !== undefined;
}
