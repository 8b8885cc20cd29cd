import type { TriageState } from "../../domain/thread-change.js";
import { deliveryOf, type CardFormat } from "../../domain/subscription.js";
import { renderThreadDigest } from "../../slack/render/thread-digest.js";
import type { MessageRef, StoredCard } from "../../store/message-refs.js";
import type { SlackJob } from "../job-types.js";
import type { SlackAttempt, SlackOutcome } from "./attempt.js";
import type { SlackJobDeps } from "./deps.js";
import { digestMetadata, laterOf, maxOf } from "./digest.js";
import { twoSteps } from "./handler.js";
import { comeBackSoon, tryPostingLock } from "./posting-lock.js";

type CardJob = Extract<SlackJob, { kind: "card" }>;
type ListingCounts = NonNullable<Awaited<ReturnType<SlackJobDeps["counts"]>>>;

/** What a card edit needs, read before its turn. */
interface CardUpdate {
  ref: MessageRef & { card: StoredCard };
  card: StoredCard;
  format: CardFormat;
}

/**
 * A card re-rendered from what it shows (a button changed its triage), or with the listing's
 * current counts (new messages arrived). Nothing to edit: no card, a card from before cards were
 * kept, or counts that did not move.
 */
async function prepare(
  attempt: SlackAttempt<CardJob>,
  deps: Pick<SlackJobDeps, "refs" | "counts" | "subscriptions">,
): Promise<CardUpdate | SlackOutcome> {
  const { channelId: channel, threadId, reason } = attempt.data;
  const ref = await deps.refs.get(channel, threadId);
  if (!ref?.card) return "stale";
  const stored = ref.card;
  let card = stored;
  if (reason === "counts") {
    const counts = await deps.counts(stored.digest.groupId, threadId);
    const moved = counts && withCounts(stored, counts);
    if (!moved) return "stale";
    card = moved;
  }
  const sub = await deps.subscriptions.get(channel, stored.digest.groupId);
  return { ref: { ...ref, card: stored }, card, format: sub ? deliveryOf(sub).format : "full" };
}

async function send(
  attempt: SlackAttempt<CardJob>,
  deps: Pick<SlackJobDeps, "redis" | "keys" | "lockTtlMs" | "refs" | "triage" | "sender" | "now">,
  u: CardUpdate,
): Promise<SlackOutcome> {
  const now = deps.now ?? Date.now;
  const { channelId: channel, threadId } = attempt.data;
  const release = await tryPostingLock(deps, channel, threadId);
  if (!release) await comeBackSoon(attempt, now);
  try {
    // A digest edit may have landed while this job waited: render what is stored now.
    const current = await deps.refs.get(channel, threadId);
    if (!current?.card || current.ts !== u.ref.ts) return "stale";
    const card = latestOf(current.card, u);
    // The thread's triage, whichever card it was pressed on (it belongs to the thread).
    const triage: TriageState = await deps.triage.get(threadId);
    const { text, blocks } = renderThreadDigest(card.digest, {
      format: u.format,
      triage,
      change: card.change,
      noLongerMatches: card.noLongerMatches,
    });
    await deps.sender.update({
      channel,
      ts: current.ts,
      text,
      blocks,
      metadata: digestMetadata(threadId, card.digest.groupId),
    });
    if (card !== current.card) await deps.refs.setCard(channel, threadId, current.ts, card);
    return "updated";
  } finally {
    await release?.();
  }
}

/** The card with the listing's counts, or undefined when they show what the card shows. */
export function withCounts(stored: StoredCard, counts: ListingCounts): StoredCard | undefined {
  const messageCount = counts.messageCount ?? stored.digest.messageCount;
  const participantCount = counts.participantCount ?? stored.digest.participantCount;
  // Last activity moves with the counts (issue 35, item 7), and never backwards.
  const lastMessageDate = laterOf(stored.digest.lastMessageDate, counts.lastMessageDate);
  if (
    messageCount === stored.digest.messageCount &&
    participantCount === stored.digest.participantCount &&
    lastMessageDate === stored.digest.lastMessageDate
  ) {
    return undefined;
  }
  return {
    ...stored,
    digest: {
      ...stored.digest,
      messageCount,
      participantCount,
      ...(lastMessageDate !== undefined ? { lastMessageDate } : {}),
    },
    countsAtMs: Date.now(),
  };
}

/** The card as stored now, with this edit's counts when those are newer than what it shows. */
function latestOf(current: StoredCard, u: CardUpdate): StoredCard {
  if (current.digest.enrichedAt === u.ref.card.digest.enrichedAt) return u.card;
  // Newer enrichment meanwhile: keep it, with the counts when those are newer still.
  if (u.card.countsAtMs === undefined) return current;
  return {
    ...current,
    digest: {
      ...current.digest,
      messageCount: maxOf(current.digest.messageCount, u.card.digest.messageCount),
      participantCount: maxOf(current.digest.participantCount, u.card.digest.participantCount),
      lastMessageDate: laterOf(current.digest.lastMessageDate, u.card.digest.lastMessageDate),
    },
    countsAtMs: u.card.countsAtMs,
  };
}

/** Edits a posted card: its triage changed (a button), or its counts moved (new messages). */
export const cardHandler = twoSteps<"card", CardUpdate>({
  refused: "card",
  prepare,
  send,
  method: () => "chat.update",
});
