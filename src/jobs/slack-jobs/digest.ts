import { UnrecoverableError } from "bullmq";
import { cardFactsOf, changeSinceCard } from "../../domain/thread-change.js";
import type { ThreadDigest } from "../../domain/thread-digest.js";
import { deliveryOf, type CardFormat } from "../../domain/subscription.js";
import { classifySlackError } from "../../slack/errors.js";
import { DIGEST_EVENT_TYPE, type DigestMetadata } from "../../slack/outbound/slack-sender.js";
import { escapeAndTruncate } from "../../slack/mrkdwn.js";
import { renderThreadDigest } from "../../slack/render/thread-digest.js";
import { EMOJI } from "../../slack/render/wording.js";
import { digestVersion, type StoredCard } from "../../store/message-refs.js";
import { jobId, type SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import { twoSteps } from "./handler.js";
import { comeBackSoon, tryPostingLock } from "./posting-lock.js";

type DigestJob = Extract<SlackJob, { kind: "digest" }>;

type PrepareDeps = Pick<SlackJobDeps, "subscriptions" | "refs">;
type SendDeps = Pick<
  SlackJobDeps,
  "redis" | "keys" | "lockTtlMs" | "refs" | "triage" | "sender" | "slackQueue" | "logger" | "now" | "restarts"
>;

interface DigestSend {
  format: CardFormat;
  /** No card was found before the turn: this is most likely a first post. */
  likelyNew: boolean;
}

/**
 * Before the turn: unsubscribed, paused or older than the card: nothing to post. Read together:
 * one write to Redis on an auto-pipelined connection.
 */
async function prepare(
  attempt: SlackAttempt<DigestJob>,
  deps: PrepareDeps,
): Promise<DigestSend | SlackOutcome> {
  const data = attempt.data;
  if (data.refusedAtOnce !== undefined) {
    // Recorded once: a retry asked for later (the admin page, after a fix) sends it for real.
    const { refusedAtOnce, ...rest } = data;
    await attempt.updateData(rest);
    throw new UnrecoverableError(refusedAtOnce);
  }
  const [sub, ref] = await Promise.all([
    deps.subscriptions.get(data.channelId, data.digest.groupId),
    deps.refs.get(data.channelId, data.digest.threadId),
  ]);
  if (!sub || sub.paused) return "stale";
  const version = digestVersion(data.enrichedAtMs, Boolean(data.digest.sentiment));
  if (ref && digestVersion(ref.enrichedAtMs, ref.hasSentiment) >= version) return "stale";
  // Out of this channel's filters and never posted here: nothing to keep true.
  if (!ref && data.noLongerMatches) return "stale";
  return { format: deliveryOf(sub).format, likelyNew: !ref };
}

/**
 * A digest is posted once per (channel, thread) and edited in place afterwards; an older
 * enrichment never overwrites a newer one (rule 2).
 */
async function send(attempt: SlackAttempt<DigestJob>, deps: SendDeps, o: DigestSend): Promise<SlackOutcome> {
  const now = deps.now ?? Date.now;
  const { channelId: channel, enrichedAtMs } = attempt.data;
  const noLongerMatches = attempt.data.noLongerMatches === true;
  let digest = attempt.data.digest;
  const threadId = digest.threadId;
  // The lock and what the card needs are asked together (one write): when the lock is not
  // taken, the reads are simply not used. A likely first post is marked in the same write,
  // after the mark of an earlier attempt is read; an earlier mark is kept (a retry then looks
  // back further), and a mark left by a job that turned out to edit is harmless: it is read
  // only while no card is recorded, and recording one ends it.
  const markedAt = new Date(now());
  const [release, firstRef, triage, posting, marked] = await Promise.all([
    tryPostingLock(deps, channel, threadId),
    deps.refs.get(channel, threadId),
    deps.triage.get(threadId),
    deps.refs.postingSince(channel, threadId),
    o.likelyNew
      ? deps.refs.markPosting(channel, threadId, markedAt, { ifUnmarked: true }).then(() => true)
      : false,
  ]);
  if (!release) await comeBackSoon(attempt, now);
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
        lastMessageDate: laterOf(digest.lastMessageDate, prev.digest.lastMessageDate),
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
    const { text, blocks } = renderThreadDigest(digest, {
      format: o.format,
      triage,
      change,
      noLongerMatches,
    });
    const metadata = digestMetadata(threadId, digest.groupId);

    // A previous attempt may have posted and died before recording the ts (or Redis lost the
    // record in a restart): look for it.
    const since = ref ? undefined : (posting ?? (await deps.restarts?.lookBackSince(enrichedAtMs)));
    if (!ref && since !== undefined) {
      const ts = await deps.sender.findDigest(channel, threadId, since - 5_000).catch((err: unknown) => {
        // Rate limited: wait and look again (posting afresh now could post it twice).
        if (classifySlackError(err).kind === "rate_limited") throw err;
        // History unreadable (scope missing, Slack down): post afresh, as when nothing is found.
        deps.logger.debug({ err, channel, threadId }, "could not look for an earlier post of this digest");
        return undefined;
      });
      // Found after a crash: it shows this very digest (or an older one); edit it in place.
      if (ts) ref = { ts, enrichedAtMs: 0, hasSentiment: false, groupId: digest.groupId };
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
        ts = await postMarked(deps, { channel, threadId, text, blocks, metadata }, now);
        outcome = "posted";
      }
    } else {
      // The mark is this attempt's own only when no earlier one was there (ifUnmarked kept that).
      ts = marked
        ? await postUnmarkingIfRefused(
            deps,
            { channel, threadId, text, blocks, metadata },
            posting === undefined ? markedAt : undefined,
          )
        : await postMarked(deps, { channel, threadId, text, blocks, metadata }, now);
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
      // A first card of the thread here: the index every triage edit reads, and Home's open list.
      firstRef ? undefined : deps.refs.noteChannel(channel, threadId, new Date(now())),
      firstRef ? undefined : deps.triage.noteCard(threadId, new Date(now())),
      release?.(),
    ]);
    // No follower when the card's triage was read: nobody to tell (the read, the mark and its check
    // are left out: most re-enrichments are of threads nobody follows).
    if (reEnriched && triage.followers > 0)
      await notifyFollowers(deps, { channel, ts, digest, change, enrichedAtMs });
    deps.logger.info({ jobId: attempt.id, channel, threadId, ts, outcome }, "digest delivered");
    return outcome;
  } finally {
    await release?.();
  }
}

/** Posts a thread's card in a channel: one per (channel, thread), then edited. */
export const digestHandler = twoSteps<"digest", DigestSend>({
  refused: "digest",
  prepare,
  send,
  // A card found before the turn is edited (a first post is limited per channel, never held).
  method: (p) => (p.likelyNew ? undefined : "chat.update"),
});

/** Message metadata that marks a card as ours, so a crashed post can be found again. */
export const digestMetadata = (threadId: string, groupId: string): DigestMetadata => ({
  event_type: DIGEST_EVENT_TYPE,
  event_payload: { thread_id: threadId, group_id: groupId },
});

type CardPost = {
  channel: string;
  threadId: string;
  text: string;
  blocks: unknown[];
  metadata: DigestMetadata;
};

async function postMarked(
  deps: Pick<SendDeps, "refs" | "sender">,
  m: CardPost,
  now: () => number,
): Promise<string> {
  const at = new Date(now());
  await deps.refs.markPosting(m.channel, m.threadId, at);
  return postUnmarkingIfRefused(deps, m, at);
}

/**
 * Posts the card. Slack's 429 means nothing was posted, so the mark this attempt made (`ownMark`)
 * is ended: the retry a second later posts without first reading a page of the channel's history
 * for it. Any other failure may have posted (a 500, a timeout): the mark stays and the retry looks.
 */
async function postUnmarkingIfRefused(
  deps: Pick<SendDeps, "refs" | "sender">,
  m: CardPost,
  ownMark: Date | undefined,
): Promise<string> {
  try {
    return await deps.sender.post({
      channel: m.channel,
      text: m.text,
      blocks: m.blocks,
      metadata: m.metadata,
    });
  } catch (err) {
    if (ownMark && classifySlackError(err).kind === "rate_limited") {
      // Left in place, the mark costs only that look.
      await deps.refs.unmarkPosting(m.channel, m.threadId, ownMark).catch(() => undefined);
    }
    throw err;
  }
}

export const maxOf = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined ? b : b === undefined ? a : Math.max(a, b);

/** The later of two ISO times (an unreadable one loses). */
export function laterOf(a: string | undefined, b: string | undefined): string | undefined {
  const ta = a ? Date.parse(a) : NaN;
  const tb = b ? Date.parse(b) : NaN;
  if (Number.isNaN(tb)) return a;
  if (Number.isNaN(ta)) return b;
  return tb > ta ? b : a;
}

/**
 * One DM per follower and re-enrichment, however many channels show the thread: the first of
 * its cards edited for this re-enrichment queues them (job ids without the channel), and notes
 * it, so the other channels' edits, even hours later, send none.
 */
async function notifyFollowers(
  deps: Pick<SendDeps, "triage" | "slackQueue">,
  o: { channel: string; ts: string; digest: ThreadDigest; change: readonly string[]; enrichedAtMs: number },
): Promise<void> {
  const { channel, ts, digest } = o;
  if (await deps.triage.followersTold(digest.threadId, o.enrichedAtMs)) return;
  const followers = await deps.triage.followersOf(digest.threadId);
  for (const userId of followers) {
    await deps.slackQueue().add(
      "dm",
      {
        kind: "dm",
        channelId: userId,
        userId,
        text: followerText(digest, o.change),
        card: { channel, ts },
      },
      { jobId: jobId("dm-follow", userId, digest.threadId, o.enrichedAtMs) },
    );
  }
  // After the adds: a crash in between queues them again, and their ids make that a no-op.
  await deps.triage.noteFollowersTold(digest.threadId, o.enrichedAtMs);
}

function followerText(d: ThreadDigest, change: readonly string[]): string {
  const title = escapeAndTruncate(d.title.trim() || "Untitled thread", 200);
  const what = change.length > 0 ? `: ${escapeAndTruncate(change.join(" · "), 600)}` : "";
  return `${EMOJI.following} A thread you follow has changed — *${title}*${what}`;
}
