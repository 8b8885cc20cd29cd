import type { BlockAction, Middleware, SlackActionMiddlewareArgs, StaticSelectAction } from "@slack/bolt";
import { isRemindChoice, reminderId, remindAt, type Reminder } from "../../domain/reminder.js";
import type { Logger } from "../../log.js";
import type { MessageRefStore } from "../../store/message-refs.js";
import type { ReminderStore } from "../../store/reminders.js";
import type { WatchDmRefs } from "../../store/watch-dms.js";
import { CARD_BLOCK_PREFIX } from "../action-ids.js";
import { decodeCardBlockId } from "../button-values.js";
import { reminderSetText } from "../render/reminder.js";
import { EMOJI } from "../render/wording.js";
import { STALE_BUTTON, type Respond } from "./reply.js";

/*
 * Remind me later (`digest.remind`, a menu on every card): records the reminder under the
 * presser (store/reminders.ts) and queues the delayed job that fires it (jobs/remind.ts, given
 * by the composition root as `scheduleReminder`). Private: only the presser hears of it.
 */

export interface RemindDeps {
  reminders: Pick<ReminderStore, "add" | "remove" | "limit">;
  /** The card's current title (a channel card, or a watch DM's card). */
  refs: Pick<MessageRefStore, "get">;
  watchDms: Pick<WatchDmRefs, "get">;
  /** Queues the delayed job that fires the reminder at its time (fires once, survives restarts). */
  scheduleReminder: (r: Reminder) => Promise<void>;
  /** The presser's own Slack time zone: "tomorrow at 9:00" is theirs. */
  userTimeZoneOf: (userId: string) => Promise<string>;
  logger: Logger;
  now?: () => Date;
}

/** One choice in the menu, as Slack describes it (block_actions). */
export interface RemindPress {
  userId: string;
  channelId: string | undefined;
  /** The card's ts (the message the menu is on). */
  cardTs: string | undefined;
  blockId: string | undefined;
  choice: string | undefined;
  respond: Respond;
}

const ephemeral = (respond: Respond, text: string) =>
  respond({ response_type: "ephemeral", replace_original: false, text });

/** Records and schedules one reminder; says what it did, privately. */
export async function pressRemind(
  deps: RemindDeps,
  p: RemindPress,
): Promise<"added" | "exists" | "limit" | "refused"> {
  const thread = decodeCardBlockId(CARD_BLOCK_PREFIX, p.blockId);
  if (!thread || !p.channelId || !p.cardTs || !isRemindChoice(p.choice)) {
    await ephemeral(p.respond, STALE_BUTTON);
    return "refused";
  }
  const now = (deps.now?.() ?? new Date()).getTime();
  const zone = await deps.userTimeZoneOf(p.userId).catch((err: unknown) => {
    deps.logger.info({ err, user: p.userId }, "remind: the person's zone could not be read; using UTC");
    return "UTC";
  });
  const dueAtMs = remindAt(p.choice, now, zone);
  const [ref, dm] = await Promise.all([
    deps.refs.get(p.channelId, thread.t),
    p.channelId.startsWith("D") ? deps.watchDms.get(p.userId, thread.t) : undefined,
  ]);
  const title = ref?.card?.digest.title ?? (dm?.kind === "card" ? dm.digest.title : "") ?? "";
  const r: Reminder = {
    id: reminderId({ dueAtMs, channelId: p.channelId, cardTs: p.cardTs }),
    userId: p.userId,
    channelId: p.channelId,
    cardTs: p.cardTs,
    threadId: thread.t,
    groupId: thread.g,
    title,
    dueAtMs,
    createdAtMs: now,
  };
  const added = await deps.reminders.add(r);
  if (added === "limit") {
    await ephemeral(
      p.respond,
      `${EMOJI.notAllowed} You already have ${deps.reminders.limit} pending reminders, the most one person can keep. Cancel some from \`/insight watch list\` first.`,
    );
    return "limit";
  }
  if (added === "added") {
    try {
      await deps.scheduleReminder(r);
    } catch (err) {
      // Without its job it would never fire: take it back and say so.
      await deps.reminders.remove(r.userId, r.id).catch(() => undefined);
      throw err;
    }
    deps.logger.info({ user: p.userId, threadId: thread.t, dueAtMs }, "reminder set");
  }
  await ephemeral(p.respond, reminderSetText({ title, dueAtMs, already: added === "exists" }));
  return added;
}

export type StaticSelectListener = Middleware<SlackActionMiddlewareArgs<BlockAction<StaticSelectAction>>>;

/** Acks at once (Slack's 3 s), then records; a failure is logged and told to the presser. */
export function remindAction(deps: RemindDeps): StaticSelectListener {
  return async ({ ack, action, body, respond }) => {
    await ack();
    try {
      await pressRemind(deps, {
        userId: body.user.id,
        channelId: body.channel?.id ?? body.container?.channel_id,
        cardTs: body.message?.ts ?? body.container?.message_ts,
        blockId: action.block_id,
        choice: action.selected_option?.value,
        respond,
      });
    } catch (err) {
      deps.logger.error({ err }, "remind failed");
      await ephemeral(respond, "The reminder could not be set just now. Try the menu again.").catch(
        () => undefined,
      );
    }
  };
}
