import { DelayedError, UnrecoverableError, type Job } from "bullmq";
import type { RedisClient as Redis } from "../store/redis.js";
import { cardFactsOf, changeSinceCard, type TriageState } from "../domain/thread-change.js";
import type { ThreadDigest } from "../domain/thread-digest.js";
import { deliveryOf, type CardFormat } from "../domain/subscription.js";
import type { Logger } from "../log.js";
import { classifySlackError } from "../slack/errors.js";
import type { ChannelThrottle } from "../slack/outbound/channel-throttle.js";
import { sendInTurn, type WaitReason } from "../slack/outbound/send-in-turn.js";
import type { DigestMetadata, SlackSender } from "../slack/outbound/slack-sender.js";
import { DIGEST_EVENT_TYPE } from "../slack/outbound/slack-sender.js";
import { renderCardReplies, REPLY_BATCH_MAX } from "../slack/render/card-replies.js";
import { renderThreadDigest } from "../slack/render/thread-digest.js";
import type { StateKeys } from "../store/keys.js";
import { tryLock } from "../store/lock.js";
import {
  digestVersion,
  type MessageRef,
  type MessageRefStore,
  type StoredCard,
} from "../store/message-refs.js";
import type { PendingReplies } from "../store/pending-replies.js";
import type { RedisRestarts } from "../store/redis-restarts.js";
import type { TriageStore } from "../store/triage.js";
import type { SubscriptionStore } from "../store/subscriptions.js";
import { channelIncident, type OpsNotifier } from "../ops/ops-notifier.js";
import { escapeAndTruncate } from "../slack/mrkdwn.js";
import { EMOJI, plural } from "../slack/render/wording.js";
import { jobId, type Producer, type SlackJob } from "./queues.js";

export interface SlackOutDeps {
  /** The (channel, thread) posting lock. */
  redis: Redis;
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
  /** After a Redis restart: where to look in Slack for a first post whose record was lost. */
  restarts?: Pick<RedisRestarts, "lookBackSince">;
  logger: Logger;
  now?: () => number;
  lockTtlMs?: number;
}

export type SlackOutcome = "posted" | "updated" | "stale" | "paused" | "sent" | "held";

/** Slack errors that mean "this channel will not take our messages" (pause its subscriptions). */
const CHANNEL_GONE = new Set(["channel_not_found", "not_in_channel", "is_archived"]);

/**
 * What one attempt at a Slack effect needs of its job: a queued job's (`queuedAttempt`), or a
 * send tried at once in the delivery's own job (send-now.ts), whose waits hand it to the queue.
 */
export interface SlackAttempt {
  /** The job's id (or the id its job would have): logged with the outcome. */
  readonly id: string | undefined;
  readonly data: SlackJob;
  /** Keeps the slot reserved for this effect with it, so that a later attempt keeps its turn. */
  updateData(data: SlackJob): Promise<void>;
  /** Comes back at `untilMs`; never returns (nothing after the wait runs in this attempt). */
  deferUntil(untilMs: number): Promise<never>;
}

/** A queued job's attempt: a wait moves the job to delayed and ends the attempt (BullMQ's DelayedError). */
export function queuedAttempt(job: Job<SlackJob>, token: string | undefined): SlackAttempt {
  return {
    get id() {
      return job.id;
    },
    get data() {
      return job.data;
    },
    updateData: (data) => job.updateData(data),
    deferUntil: async (untilMs) => {
      await job.moveToDelayed(Math.ceil(untilMs), token);
      throw new DelayedError();
    },
  };
}

/**
 * One Slack effect, idempotently: a digest is posted once per (channel, thread) and edited
 * in place afterwards; an older enrichment never overwrites a newer one. Sends are spaced per
 * channel; Slack's 429 delays the job (no attempt spent); channels Slack refuses for good are
 * paused and reported.
 */
export async function processSlackJob(job: SlackAttempt, deps: SlackOutDeps): Promise<SlackOutcome> {
  const now = deps.now ?? Date.now;
  const data = job.data;
  const channel = data.channelId;

  let format: CardFormat = "full";
  let firstRef: MessageRef | undefined;
  if (data.kind === "digest" && data.refusedAtOnce !== undefined) {
    // Recorded once: a retry asked for later (the admin page, after a fix) sends it for real.
    const { refusedAtOnce, ...rest } = data;
    await job.updateData(rest);
    throw new UnrecoverableError(refusedAtOnce);
  }
  if (data.kind === "digest") {
    // Unsubscribed or paused while this job waited for its slot: nothing to post.
    // Read together: one write to Redis on an auto-pipelined connection.
    const [sub, ref] = await Promise.all([
      deps.subscriptions.get(channel, data.digest.groupId),
      deps.refs.get(channel, data.digest.threadId),
    ]);
    if (!sub || sub.paused) return "stale";
    firstRef = ref;
    format = deliveryOf(sub).format;
    const version = digestVersion(data.enrichedAtMs, Boolean(data.digest.sentiment));
    if (ref && digestVersion(ref.enrichedAtMs, ref.hasSentiment) >= version) return "stale";
    // Out of this channel's filters and never posted here: nothing to keep true.
    if (!ref && data.noLongerMatches) return "stale";
  }
  let cardUpdate: CardUpdate | undefined;
  if (data.kind === "card") {
    // Read before taking a turn: a counts edit that changes nothing sends nothing.
    cardUpdate = await prepareCard(deps, data.channelId, data.threadId, data.reason);
    if (!cardUpdate) return "stale";
  }
  let batch: Awaited<ReturnType<PendingReplies["peek"]>> | undefined;
  let replyTo: MessageRef | undefined;
  if (data.kind === "replies") {
    replyTo = await deps.refs.get(channel, data.threadId);
    batch = await deps.replies.peek(channel, data.threadId, REPLY_BATCH_MAX);
    if (!replyTo || batch.taken === 0) return "stale";
  }

  // The slot is reserved once and kept in the job's data, so a job delayed to it keeps its turn.
  const wait = async (untilMs: number, reason: WaitReason): Promise<void> => {
    const slotAt = reason === "slot" ? untilMs : undefined;
    if (job.data.slotAt !== slotAt) await job.updateData({ ...job.data, slotAt });
    await job.deferUntil(untilMs);
  };
  return sendInTurn<SlackOutcome>({
    channel,
    throttle: deps.throttle,
    now,
    wait,
    ...(data.slotAt !== undefined ? { reservedSlot: data.slotAt } : {}),
    earlyMs: 25,
    logger: deps.logger,
    context: { jobId: job.id },
    call: async () => {
      switch (data.kind) {
        case "notice":
          await deps.sender.post({ channel, text: data.text });
          return "sent";
        case "dm":
          return sendDm(deps, data);
        case "card":
          return cardUpdate ? sendCard(job, deps, cardUpdate, now) : "stale";
        case "replies":
          return replyTo && batch ? sendReplies(deps, data, replyTo, batch) : "stale";
        case "digest":
          return sendDigest(job, deps, { format, likelyNew: !firstRef }, now);
      }
    },
    onPermanent: async (c) => {
      if (CHANNEL_GONE.has(c.code) && data.kind === "digest") {
        const paused = await deps.subscriptions.pauseChannel(channel, c.code, new Date(now()));
        await deps.ops.alert(
          channelIncident(channel, c.code),
          `${EMOJI.paused} Digests to <#${channel}> are paused: Slack answered \`${c.code}\`. ` +
            `${plural(paused.length, "subscription")} paused. Invite the app to the channel (or unarchive it), then run \`/insight subscribe\` again there.`,
        );
        return "paused";
      }
      if (data.kind === "digest") {
        await deps.ops.alert(
          `slack-${c.code}`,
          `${EMOJI.problem} Slack refused a digest with \`${c.code}\`. Check SLACK_BOT_TOKEN and the app's scopes.`,
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
  job: SlackAttempt,
  deps: SlackOutDeps,
  o: {
    format: CardFormat;
    /** No card was found before the turn: this is most likely a first post. */
    likelyNew: boolean;
  },
  now: () => number,
): Promise<SlackOutcome> {
  const { format } = o;
  if (job.data.kind !== "digest") throw new Error("not a digest job");
  const { channelId: channel, enrichedAtMs } = job.data;
  const noLongerMatches = job.data.noLongerMatches === true;
  let digest = job.data.digest;
  const threadId = digest.threadId;
  // The lock and what the card needs are asked together (one write): when the lock is not
  // taken, the reads are simply not used. A likely first post is marked in the same write,
  // after the mark of an earlier attempt is read; an earlier mark is kept (a retry then looks
  // back further), and a mark left by a job that turned out to edit is harmless: it is read
  // only while no card is recorded, and recording one ends it.
  const [release, firstRef, triage, posting, marked] = await Promise.all([
    tryLock(deps.redis, deps.keys.lock(`digest:${channel}:${threadId}`), deps.lockTtlMs ?? 15_000),
    deps.refs.get(channel, threadId),
    deps.triage.get(channel, threadId),
    deps.refs.postingSince(channel, threadId),
    o.likelyNew
      ? deps.refs.markPosting(channel, threadId, new Date(now()), { ifUnmarked: true }).then(() => true)
      : false,
  ]);
  // Another job is posting this thread to this channel right now: come back shortly.
  if (!release) await job.deferUntil(now() + 300 + Math.random() * 400);
  try {
    const hasSentiment = Boolean(digest.sentiment);
    let ref = firstRef;
    if (
      ref &&
      digestVersion(ref.enrichedAtMs, ref.hasSentiment) >= digestVersion(enrichedAtMs, hasSentiment)
    ) {
      return "stale";
    }
    if (!ref && noLongerMatches) return "stale";
    // Rule 10: a card is never posted empty. Nothing to show yet: the refresh brings more.
    if (!ref && !digest.title && !digest.summary && !digest.sentiment) return "held";

    const prev = ref?.card;
    // Counts read from the listing after this enrichment are newer than the payload's.
    if (prev?.countsAtMs !== undefined && prev.countsAtMs > enrichedAtMs) {
      digest = {
        ...digest,
        messageCount: maxOf(digest.messageCount, prev.digest.messageCount),
        participantCount: maxOf(digest.participantCount, prev.digest.participantCount),
      };
    }
    const reEnriched = ref !== undefined && ref.enrichedAtMs > 0 && enrichedAtMs > ref.enrichedAtMs;
    // A sentiment filled in for the same enrichment is not news: the last change line stays.
    const change = prev
      ? reEnriched
        ? changeSinceCard(cardFactsOf(prev.digest), cardFactsOf(digest), { triage, enrichedAtMs })
        : prev.change
      : [];
    const card: StoredCard = {
      digest,
      change,
      noLongerMatches,
      ...(prev?.countsAtMs !== undefined ? { countsAtMs: prev.countsAtMs } : {}),
    };
    const { text, blocks } = renderThreadDigest(digest, { format, triage, change, noLongerMatches });
    const metadata: DigestMetadata = {
      event_type: DIGEST_EVENT_TYPE,
      event_payload: { thread_id: threadId, group_id: digest.groupId },
    };

    // A previous attempt may have posted and died before recording the ts (or Redis lost the
    // record in a restart): look for it.
    if (!ref) {
      const since = posting ?? (await deps.restarts?.lookBackSince(enrichedAtMs));
      if (since !== undefined) {
        const ts = await deps.sender.findDigest(channel, threadId, since - 5_000).catch((err: unknown) => {
          // Rate limited: wait and look again (posting afresh now could post it twice).
          if (classifySlackError(err).kind === "rate_limited") throw err;
          // History unreadable (scope missing, Slack down): post afresh, as when nothing is found.
          deps.logger.debug({ err, channel, threadId }, "could not look for an earlier post of this digest");
          return undefined;
        });
        if (ts) ref = { ts, enrichedAtMs: 0, hasSentiment: false, groupId: digest.groupId };
        // Found after a crash: it shows this very digest (or an older one); edit it in place.
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
      ts = marked
        ? await deps.sender.post({ channel, text, blocks, metadata })
        : await postMarked(deps, channel, threadId, text, blocks, metadata, now);
      outcome = "posted";
    }
    // The ref and the end of the posting mark in one script: a retry finds either the mark
    // or the ref, never neither. The triage note and the lock's release go in the same write,
    // after it (one connection runs them in order).
    await Promise.all([
      deps.refs.setIfNewer(channel, threadId, {
        ts,
        enrichedAtMs,
        hasSentiment,
        groupId: digest.groupId,
        card,
      }),
      outcome === "posted" ? deps.triage.noteCard(channel, threadId, new Date(now())) : undefined,
      release?.(),
    ]);
    if (reEnriched) await notifyFollowers(deps, channel, ts, digest, change, enrichedAtMs);
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

const maxOf = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

/** One DM per follower and re-enrichment: the job id makes a repeated edit DM once. */
async function notifyFollowers(
  deps: SlackOutDeps,
  channel: string,
  ts: string,
  digest: ThreadDigest,
  change: readonly string[],
  enrichedAtMs: number,
): Promise<void> {
  const followers = await deps.triage.followersOf(channel, digest.threadId);
  for (const userId of followers) {
    await deps.slackQueue().add(
      "dm",
      {
        kind: "dm",
        channelId: userId,
        userId,
        text: followerText(digest, change),
        card: { channel, ts },
      },
      { jobId: jobId("dm-follow", userId, channel, digest.threadId, enrichedAtMs) },
    );
  }
}

function followerText(d: ThreadDigest, change: readonly string[]): string {
  const title = escapeAndTruncate(d.title.trim() || "Untitled thread", 200);
  const what = change.length > 0 ? `: ${escapeAndTruncate(change.join(" · "), 600)}` : "";
  return `${EMOJI.following} A thread you follow was re-enriched — *${title}*${what}`;
}

/** A DM to one user, with a link to the card when there is one (assignment, follow). */
async function sendDm(deps: SlackOutDeps, data: Extract<SlackJob, { kind: "dm" }>): Promise<SlackOutcome> {
  const dm = await deps.sender.openDm(data.userId);
  let text = data.text;
  if (data.card) {
    const link = await deps.sender.permalink(data.card.channel, data.card.ts).catch((err: unknown) => {
      // Rate limited: the DM waits for its link rather than going without it.
      if (classifySlackError(err).kind === "rate_limited") throw err;
      // The card was deleted meanwhile: the DM still says what happened, without the link.
      deps.logger.debug({ err, channel: data.card?.channel }, "no permalink for the card");
      return undefined;
    });
    if (link) text += `\n<${link}|Open the card>`;
  }
  await deps.sender.post({ channel: dm, text });
  return "sent";
}

/** What a card edit needs, read before its turn. */
interface CardUpdate {
  channel: string;
  threadId: string;
  ref: MessageRef & { card: StoredCard };
  card: StoredCard;
  triage: TriageState;
  format: CardFormat;
}

/**
 * A card re-rendered from what it shows (a button changed its triage), or with the listing's
 * current counts (new messages arrived). Undefined when there is nothing to edit: no card, a
 * card from before cards were kept, or counts that did not move.
 */
async function prepareCard(
  deps: SlackOutDeps,
  channel: string,
  threadId: string,
  reason: "triage" | "counts",
): Promise<CardUpdate | undefined> {
  const ref = await deps.refs.get(channel, threadId);
  if (!ref?.card) return undefined;
  const stored = ref.card;
  let card = stored;
  if (reason === "counts") {
    const counts = await deps.counts(stored.digest.groupId, threadId);
    if (!counts) return undefined;
    const messageCount = counts.messageCount ?? stored.digest.messageCount;
    const participantCount = counts.participantCount ?? stored.digest.participantCount;
    if (messageCount === stored.digest.messageCount && participantCount === stored.digest.participantCount) {
      return undefined;
    }
    card = {
      ...stored,
      digest: { ...stored.digest, messageCount, participantCount },
      countsAtMs: Date.now(),
    };
  }
  const [triage, sub] = await Promise.all([
    deps.triage.get(channel, threadId),
    deps.subscriptions.get(channel, stored.digest.groupId),
  ]);
  return {
    channel,
    threadId,
    ref: { ...ref, card: stored },
    card,
    triage,
    format: sub ? deliveryOf(sub).format : "full",
  };
}

async function sendCard(
  job: SlackAttempt,
  deps: SlackOutDeps,
  u: CardUpdate,
  now: () => number,
): Promise<SlackOutcome> {
  const release = await tryLock(
    deps.redis,
    deps.keys.lock(`digest:${u.channel}:${u.threadId}`),
    deps.lockTtlMs ?? 15_000,
  );
  if (!release) await job.deferUntil(now() + 300 + Math.random() * 400);
  try {
    // A digest edit may have landed while this job waited: render what is stored now.
    const current = await deps.refs.get(u.channel, u.threadId);
    if (!current?.card || current.ts !== u.ref.ts) return "stale";
    const card =
      current.card.digest.enrichedAt === u.ref.card.digest.enrichedAt
        ? u.card
        : // Newer enrichment meanwhile: keep it, with the counts when those are newer still.
          u.card.countsAtMs !== undefined
          ? {
              ...current.card,
              digest: {
                ...current.card.digest,
                messageCount: maxOf(current.card.digest.messageCount, u.card.digest.messageCount),
                participantCount: maxOf(current.card.digest.participantCount, u.card.digest.participantCount),
              },
              countsAtMs: u.card.countsAtMs,
            }
          : current.card;
    const triage = await deps.triage.get(u.channel, u.threadId);
    const { text, blocks } = renderThreadDigest(card.digest, {
      format: u.format,
      triage,
      change: card.change,
      noLongerMatches: card.noLongerMatches,
    });
    await deps.sender.update({
      channel: u.channel,
      ts: current.ts,
      text,
      blocks,
      metadata: {
        event_type: DIGEST_EVENT_TYPE,
        event_payload: { thread_id: u.threadId, group_id: card.digest.groupId },
      },
    });
    if (card !== current.card) await deps.refs.setCard(u.channel, u.threadId, current.ts, card);
    return "updated";
  } finally {
    await release?.();
  }
}

/** One reply under the card with the messages waiting; more than one batch: the next goes later. */
async function sendReplies(
  deps: SlackOutDeps,
  data: Extract<SlackJob, { kind: "replies" }>,
  ref: MessageRef,
  batch: Awaited<ReturnType<PendingReplies["peek"]>>,
): Promise<SlackOutcome> {
  if (batch.replies.length > 0) {
    const { text, blocks } = renderCardReplies(batch.replies);
    await deps.sender.post({ channel: data.channelId, text, blocks, threadTs: ref.ts });
  }
  await deps.replies.drop(data.channelId, data.threadId, batch.taken);
  if (batch.taken >= REPLY_BATCH_MAX) {
    // A flood: the rest goes as the next reply, in the channel's next turn.
    await deps
      .slackQueue()
      .add(
        "replies",
        { kind: "replies", channelId: data.channelId, threadId: data.threadId },
        { jobId: jobId("replies-more", data.channelId, data.threadId, Date.now()) },
      );
  }
  return "sent";
}
