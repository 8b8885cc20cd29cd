import type { Middleware, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { TriageStore } from "../../store/triage.js";
import { CARD_BLOCK_PREFIX } from "../action-ids.js";
import { mayChangeConfig } from "../authorize.js";
import { encodeCardBlockId } from "../button-values.js";
import type { SlackApi } from "../client.js";
import { DIGEST_EVENT_TYPE } from "../outbound/slack-sender.js";
import { pressAssign, pressMarkHandled, type CardActionDeps, type CardPress } from "./card-actions.js";
import type { Respond } from "./reply.js";

/*
 * Triage by reaction (docs/using.md, "Reactions on a card"): ✅ marks the thread handled by the
 * person who reacted, removing it reopens unless someone else's mark stands; 👀 assigns the
 * thread to them. The same presses as the card's buttons (card-actions.ts), so the effect, the
 * admins-only rule and the card's edit are the same (every card of the thread, triage belongs to
 * the thread). A card is a channel's card or a watch DM (only its person sees it). A reaction on
 * anything that is not one of the app's cards is ignored.
 */

/** Reaction names (as Slack sends them, without colons) that mark a thread handled. */
export const HANDLED_REACTIONS: ReadonlySet<string> = new Set(["white_check_mark", "heavy_check_mark"]);
/** The reaction that assigns the thread to whoever reacted. */
export const ASSIGN_REACTION = "eyes";

export interface ReactionDeps extends CardActionDeps {
  triage: CardActionDeps["triage"] & Pick<TriageStore, "get">;
  /** conversations.history (the card's metadata), reactions.get (whose marks stand), chat.postEphemeral. */
  slack: Pick<SlackApi, "call" | "postEphemeral">;
}

/** A reaction as the event says it. */
export interface ReactionEvent {
  type: "reaction_added" | "reaction_removed";
  user: string;
  reaction: string;
  item: { type: string; channel?: string; ts?: string };
  item_user?: string;
}

/**
 * The thread a message is the card of, or undefined when it is not one of the app's cards: a
 * channel's card, or the watch DM of the person who reacted (`user`).
 */
export async function cardOf(
  deps: Pick<ReactionDeps, "slack" | "refs" | "watchDms">,
  channel: string,
  ts: string,
  user?: string,
): Promise<{ groupId: string; threadId: string } | undefined> {
  const res = await deps.slack.call<{
    messages?: { ts?: string; metadata?: { event_type?: string; event_payload?: Record<string, unknown> } }[];
  }>("conversations.history", {
    channel,
    latest: ts,
    oldest: ts,
    inclusive: true,
    limit: 1,
    include_all_metadata: true,
  });
  const m = res.messages?.find((x) => x.ts === ts);
  const p = m?.metadata?.event_type === DIGEST_EVENT_TYPE ? m.metadata.event_payload : undefined;
  const threadId = typeof p?.thread_id === "string" ? p.thread_id : undefined;
  const groupId = typeof p?.group_id === "string" ? p.group_id : undefined;
  if (!threadId || !groupId) return undefined;
  // The card this workspace recorded for that thread here: metadata alone could be anyone's.
  if (channel.startsWith("D")) {
    const dm = user ? await deps.watchDms?.get(user, threadId) : undefined;
    return dm?.kind === "card" && dm.channel === channel && dm.ts === ts ? { groupId, threadId } : undefined;
  }
  const ref = await deps.refs.get(channel, threadId);
  return ref?.ts === ts ? { groupId, threadId } : undefined;
}

/** People whose ✅ (either kind) is still on the card, from Slack itself. */
async function checkMarks(deps: Pick<ReactionDeps, "slack">, channel: string, ts: string): Promise<string[]> {
  const res = await deps.slack.call<{ message?: { reactions?: { name?: string; users?: string[] }[] } }>(
    "reactions.get",
    { channel, timestamp: ts, full: true },
  );
  const users = (res.message?.reactions ?? [])
    .filter((r) => r.name !== undefined && HANDLED_REACTIONS.has(r.name.replace(/::skin-tone-\d$/, "")))
    .flatMap((r) => r.users ?? []);
  return [...new Set(users)];
}

export type ReactionOutcome = "ignored" | "changed" | "unchanged" | "refused" | "kept";

/**
 * One reaction added or removed. `botUserId`, when known, skips reactions on other people's
 * messages without asking Slack; the card itself is recognised by its metadata and its ref.
 */
export async function onReaction(
  deps: ReactionDeps,
  e: ReactionEvent,
  o: { botUserId?: string | undefined; now?: Date } = {},
): Promise<ReactionOutcome> {
  const name = e.reaction.replace(/::skin-tone-\d$/, "");
  const handles = HANDLED_REACTIONS.has(name);
  if (!handles && name !== ASSIGN_REACTION) return "ignored";
  if (e.item.type !== "message" || !e.item.channel || !e.item.ts) return "ignored";
  if (o.botUserId && e.item_user && e.item_user !== o.botUserId) return "ignored";
  const channel = e.item.channel;
  const ts = e.item.ts;
  const card = await cardOf(deps, channel, ts, e.user);
  if (!card) return "ignored";

  const respond: Respond = (reply) =>
    deps.slack.postEphemeral({ channel, user: e.user, text: reply.text }).catch((err: unknown) => {
      deps.logger.debug({ err, channel }, "reaction: the ephemeral reply was not delivered");
    });
  const press = (userId: string, extra: Partial<CardPress>): CardPress => ({
    userId,
    channelId: channel,
    blockId: encodeCardBlockId(CARD_BLOCK_PREFIX, { g: card.groupId, t: card.threadId }),
    respond,
    ...(o.now ? { now: o.now } : {}),
    ...extra,
  });

  if (name === ASSIGN_REACTION) {
    // Removing 👀 leaves the assignment: assign someone else from the card's menu.
    if (e.type === "reaction_removed") return "ignored";
    return pressAssign(deps, press(e.user, { selectedUser: e.user }));
  }
  if (e.type === "reaction_added") return pressMarkHandled(deps, press(e.user, { value: "handle" }));

  // Removed: only the person whose mark it is reopens, and not while another ✅ stands.
  const handled = (await deps.triage.get(card.threadId)).handled;
  if (!handled || handled.by !== e.user) return "kept";
  const standing = await checkMarks(deps, channel, ts).catch((err: unknown) => {
    deps.logger.debug({ err, channel }, "reaction: reactions.get failed; reopening");
    return [] as string[];
  });
  if (standing.includes(e.user)) return "kept";
  // Someone else's ✅ still stands (someone who may mark threads handled): it stays handled, by them.
  const other = standing.find((u) => u !== e.user && mayChangeConfig(u, deps.adminUserIds));
  if (other) {
    const now = o.now ?? new Date();
    const where = channel.startsWith("D") ? {} : { channelId: channel };
    await deps.triage.setHandled(card.threadId, false, e.user, now);
    await deps.triage.setHandled(card.threadId, true, other, now, where);
    await deps.cards.refresh(card.threadId, `handled-${now.getTime()}-${other}`, channel);
    return "changed";
  }
  return pressMarkHandled(deps, press(e.user, { value: "reopen" }));
}

export type ReactionListener = Middleware<SlackEventMiddlewareArgs<"reaction_added" | "reaction_removed">>;

/** `reaction_added` / `reaction_removed`: acked by Bolt at once; a failure is logged. */
export function reactionListener(deps: ReactionDeps): ReactionListener {
  return async ({ event, context }) => {
    try {
      const outcome = await onReaction(deps, event as ReactionEvent, { botUserId: context.botUserId });
      if (outcome !== "ignored") {
        deps.logger.info({ reaction: event.reaction, user: event.user, outcome }, "card reaction");
      }
    } catch (err) {
      deps.logger.error({ err, reaction: event.reaction }, "reaction failed");
    }
  };
}
