import type { BlockAction, Middleware, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { Logger } from "../../log.js";
import type { MessageRefStore } from "../../store/message-refs.js";
import type { TriageStore } from "../../store/triage.js";
import type { WatchDmRefs } from "../../store/watch-dms.js";
import { CARD_BLOCK_PREFIX } from "../action-ids.js";
import { mayChangeConfig } from "../authorize.js";
import { decodeCardBlockId, handledIntentSchema } from "../button-values.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { EMOJI } from "../render/wording.js";
import { STALE_BUTTON, type Respond } from "./reply.js";

/** Card effects that go through the outbound queue (built by the composition root). */
export interface CardEffects {
  /**
   * Re-renders every card of the thread with its triage now (triage belongs to the thread): each
   * channel's card and each watch DM of it, each in its own turn. `pressedIn`: the card pressed,
   * edited even if the thread's index of cards does not know it yet.
   */
  refresh(threadId: string, key: string, pressedIn?: string): Promise<void>;
  /** A DM to one user, with the card's permalink when `card` is given; `key` makes it once. */
  dm(a: { userId: string; text: string; card?: { channel: string; ts: string }; key: string }): Promise<void>;
}

/** What the card's triage buttons read and change. */
export interface CardActionDeps {
  triage: Pick<TriageStore, "setHandled" | "assign" | "toggleFollow" | "firstPress">;
  /** The thread's channel cards (the assignee's DM links one). */
  refs: Pick<MessageRefStore, "get" | "channelsOf">;
  /** A press on a watch DM: that DM's card (its title, when no channel shows the thread). */
  watchDms?: Pick<WatchDmRefs, "get">;
  cards: CardEffects;
  adminUserIds: readonly string[];
  logger: Logger;
}

/** One press on a card, as Slack describes it (block_actions). */
export interface CardPress {
  userId: string;
  channelId: string | undefined;
  blockId: string | undefined;
  /** A button's value. */
  value?: string | undefined;
  /** The users_select's choice. */
  selectedUser?: string | undefined;
  respond: Respond;
  now?: Date;
}

export const TRIAGE_ADMINS_ONLY = `${EMOJI.notAllowed} Only the app's admins can mark threads handled or assign them in this workspace. Messages and Follow work for everyone.`;

const ephemeral = (respond: Respond, text: string) =>
  respond({ response_type: "ephemeral", replace_original: false, text });

/** Where a card lives: a channel, or a person's DM (a watch DM: its channel id starts with D). */
const isDm = (channelId: string) => channelId.startsWith("D");

/** The thread a press acts on (and the card it was pressed on), or a stale-button reply. */
async function target(p: CardPress): Promise<{ channelId: string; threadId: string } | undefined> {
  const thread = decodeCardBlockId(CARD_BLOCK_PREFIX, p.blockId);
  if (!thread || !p.channelId) {
    await ephemeral(p.respond, STALE_BUTTON);
    return undefined;
  }
  return { channelId: p.channelId, threadId: thread.t };
}

/** The channel a press names as where it happened: none for a watch DM. */
const pressedIn = (channelId: string) => (isDm(channelId) ? {} : { channelId });

/**
 * `digest.mark_handled`: the button carries the state the card showed ("handle" or
 * "reopen"), so a double click asks twice for the same state and acts once.
 */
export async function pressMarkHandled(
  deps: CardActionDeps,
  p: CardPress,
): Promise<"changed" | "unchanged" | "refused"> {
  if (!mayChangeConfig(p.userId, deps.adminUserIds)) {
    await ephemeral(p.respond, TRIAGE_ADMINS_ONLY);
    return "refused";
  }
  const t = await target(p);
  const intent = handledIntentSchema.safeParse(p.value);
  if (!t) return "refused";
  if (!intent.success) {
    await ephemeral(p.respond, STALE_BUTTON);
    return "refused";
  }
  const now = p.now ?? new Date();
  const changed = await deps.triage.setHandled(
    t.threadId,
    intent.data === "handle",
    p.userId,
    now,
    pressedIn(t.channelId),
  );
  if (!changed) return "unchanged";
  deps.logger.info(
    { channel: t.channelId, threadId: t.threadId, user: p.userId, intent: intent.data },
    "card triage",
  );
  await deps.cards.refresh(t.threadId, `handled-${now.getTime()}-${p.userId}`, t.channelId);
  return "changed";
}

/** `digest.assign`: the card shows the assignee, who gets a DM with the card's link. */
export async function pressAssign(
  deps: CardActionDeps,
  p: CardPress,
): Promise<"changed" | "unchanged" | "refused"> {
  if (!mayChangeConfig(p.userId, deps.adminUserIds)) {
    await ephemeral(p.respond, TRIAGE_ADMINS_ONLY);
    return "refused";
  }
  const t = await target(p);
  if (!t) return "refused";
  const assignee = p.selectedUser;
  if (!assignee || !/^[UW][A-Z0-9]{2,}$/.test(assignee)) {
    await ephemeral(p.respond, "Pick a person in the Assign menu to assign this thread.");
    return "refused";
  }
  const now = p.now ?? new Date();
  const changed = await deps.triage.assign(t.threadId, assignee, p.userId, now, pressedIn(t.channelId));
  if (!changed) return "unchanged";
  deps.logger.info({ channel: t.channelId, threadId: t.threadId, user: p.userId, assignee }, "card assigned");
  await deps.cards.refresh(t.threadId, `assign-${now.getTime()}-${assignee}`, t.channelId);
  // Taking it oneself (the Assign menu, or 👀 on the card) needs no DM to oneself.
  if (assignee === p.userId) return "changed";
  const card = await channelCardOf(deps, t, p.userId);
  const title = escapeAndTruncate(card.title.trim() || "a thread", 200);
  await deps.cards.dm({
    userId: assignee,
    // Ids from Slack itself (the presser, the channel): never from community text.
    text: `${EMOJI.assignee} <@${p.userId}> assigned you *${title}*${card.ref ? ` in <#${card.ref.channel}>` : ""}.`,
    ...(card.ref ? { card: card.ref } : {}),
    key: `assign-${t.threadId}-${assignee}-${now.getTime()}`,
  });
  return "changed";
}

/**
 * The channel card the assignee's DM links: the one pressed, else (a press on a watch DM, whose
 * link would open someone else's DM) the thread's first channel card; its title, else the
 * presser's watch DM's.
 */
async function channelCardOf(
  deps: CardActionDeps,
  t: { channelId: string; threadId: string },
  presser: string,
): Promise<{ title: string; ref?: { channel: string; ts: string } }> {
  const channels = isDm(t.channelId) ? await deps.refs.channelsOf(t.threadId) : [t.channelId];
  for (const channel of channels.slice(0, 5)) {
    const ref = await deps.refs.get(channel, t.threadId);
    if (ref) return { title: ref.card?.digest.title ?? "", ref: { channel, ts: ref.ts } };
  }
  const dm = isDm(t.channelId) ? await deps.watchDms?.get(presser, t.threadId) : undefined;
  return { title: dm?.kind === "card" ? dm.digest.title : "" };
}

/**
 * `digest.follow`: follows, or unfollows when pressed again. A toggle cannot carry the state
 * it wants (the card is the same for everyone), so a second press within 3 s counts as the
 * same click.
 */
export async function pressFollow(
  deps: CardActionDeps,
  p: CardPress,
): Promise<"followed" | "unfollowed" | "unchanged" | "refused"> {
  const t = await target(p);
  if (!t) return "refused";
  if (!(await deps.triage.firstPress(p.userId, t.threadId, "follow"))) return "unchanged";
  const state = await deps.triage.toggleFollow(t.threadId, p.userId);
  await deps.cards.refresh(t.threadId, `follow-${(p.now ?? new Date()).getTime()}-${p.userId}`, t.channelId);
  await ephemeral(
    p.respond,
    state === "followed"
      ? `${EMOJI.following} You follow this thread: you get a DM each time its summary, sentiment or answer changes. Press *Follow* again to stop.`
      : "You no longer follow this thread.",
  );
  return state;
}

/** A Bolt listener for any block action (buttons and the users_select). */
export type BlockActionListener = Middleware<SlackActionMiddlewareArgs<BlockAction>>;

/** Acks at once (Slack's 3 s), then acts; a failure is logged and told to the presser. */
export function cardActionListener(
  deps: CardActionDeps,
  press: (deps: CardActionDeps, p: CardPress) => Promise<unknown>,
): BlockActionListener {
  return async ({ ack, action, body, respond }) => {
    await ack();
    const p: CardPress = {
      userId: body.user.id,
      channelId: body.channel?.id ?? body.container?.channel_id,
      blockId: "block_id" in action ? action.block_id : undefined,
      value: action.type === "button" ? action.value : undefined,
      selectedUser: action.type === "users_select" ? action.selected_user : undefined,
      respond,
    };
    try {
      await press(deps, p);
    } catch (err) {
      deps.logger.error(
        { err, action: "action_id" in action ? action.action_id : undefined },
        "card action failed",
      );
      await ephemeral(respond, "That did not work just now. Try the button again.").catch(() => undefined);
    }
  };
}
