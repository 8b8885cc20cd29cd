import type {
  BlockAction,
  ButtonAction,
  Middleware,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from "@slack/bolt";
import { describeWatch, type WatchSpec } from "../../domain/watch.js";
import type { Logger } from "../../log.js";
import type { ReminderStore } from "../../store/reminders.js";
import type { WatchStore } from "../../store/watches.js";
import { decodeState } from "../button-values.js";
import type { SlackApi } from "../client.js";
import { watchListReply } from "../commands/watch.js";
import { resolveGroup, type ResolveGroupDeps } from "../commands/resolve-group.js";
import { escapeAndTruncate } from "../mrkdwn.js";
import { itemRefSchema } from "../personal-ids.js";
import { renderWatchModal, WATCH_FIELDS } from "../render/watch-modal.js";
import { EMOJI } from "../render/wording.js";
import type { Respond } from "./reply.js";
import type { FormValues } from "./settings-submit.js";
import { readWatchForm } from "./watch-form.js";
import { within } from "./within.js";

/*
 * The buttons of `watch list` and Home's "My watches": Remove a watch, Cancel a reminder, and
 * Edit (a modal). Each acts on the presser's own watches only: the ids are looked up under the
 * person who pressed, so a button forwarded to someone else finds nothing of theirs.
 */

export interface WatchActionsDeps extends ResolveGroupDeps {
  watches: Pick<WatchStore, "get" | "list" | "remove" | "replace" | "limit">;
  reminders: Pick<ReminderStore, "list" | "remove">;
  /** The person's own Slack time zone (quiet hours and daily times are in it). */
  userTimeZoneOf: (userId: string) => Promise<string>;
  slack: Pick<SlackApi, "openView">;
  logger: Logger;
}

/** Publishes the person's Home tab again (with a line on top); given by whoever registers the actions. */
export type RefreshHome = (userId: string, notice?: string) => Promise<void>;

type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;
export type ButtonListener = Middleware<ButtonArgs>;
type ViewListener = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;

/** Where a button was pressed: the ephemeral `watch list` (answered in place) or Home (republished). */
async function answer(
  deps: WatchActionsDeps,
  refreshHome: RefreshHome,
  a: { userId: string; onHome: boolean; respond: Respond | undefined; notice: string },
): Promise<void> {
  if (a.onHome) {
    await refreshHome(a.userId, a.notice);
    return;
  }
  const list = await watchListReply(deps, a.userId, a.notice);
  await a.respond?.({ replace_original: true, text: list.text, blocks: list.blocks });
}

const onHomeOf = (body: ButtonArgs["body"]) => body.view?.type === "home";

/** Remove: stops one of the presser's watches. */
export function watchRemoveAction(deps: WatchActionsDeps, refreshHome: RefreshHome): ButtonListener {
  return async ({ ack, action, body, respond }) => {
    await ack();
    const userId = body.user.id;
    const ref = decodeState(itemRefSchema, action.value);
    try {
      const w = ref ? await deps.watches.get(userId, ref.i) : undefined;
      const removed = w ? await deps.watches.remove(userId, w.id) : false;
      const notice =
        removed && w
          ? `${EMOJI.ok} Stopped watching ${escapeAndTruncate(describeWatch(w), 300)}.`
          : "That watch was already stopped.";
      await answer(deps, refreshHome, { userId, onHome: onHomeOf(body), respond, notice });
    } catch (err) {
      deps.logger.error({ err, user: userId }, "watch remove failed");
      await respond?.({ replace_original: false, text: "That did not work just now. Try again." }).catch(
        () => undefined,
      );
    }
  };
}

/** Cancel: drops one of the presser's pending reminders (its job then finds nothing and sends nothing). */
export function reminderCancelAction(deps: WatchActionsDeps, refreshHome: RefreshHome): ButtonListener {
  return async ({ ack, action, body, respond }) => {
    await ack();
    const userId = body.user.id;
    const ref = decodeState(itemRefSchema, action.value);
    try {
      const cancelled = ref ? await deps.reminders.remove(userId, ref.i) : false;
      const notice = cancelled
        ? `${EMOJI.ok} Reminder cancelled.`
        : "That reminder was already sent or cancelled.";
      await answer(deps, refreshHome, { userId, onHome: onHomeOf(body), respond, notice });
    } catch (err) {
      deps.logger.error({ err, user: userId }, "reminder cancel failed");
      await respond?.({ replace_original: false, text: "That did not work just now. Try again." }).catch(
        () => undefined,
      );
    }
  };
}

/** How long opening the modal waits for the person's zone (the trigger expires 3 s after the click). */
const ZONE_WAIT_MS = 1_000;
/** How long a Save waits for a renamed group to resolve (Slack gives the answer 3 s). */
const GROUP_WAIT_MS = 2_000;

async function zoneWithin(deps: WatchActionsDeps, userId: string, ms: number): Promise<string> {
  const zone = await within(
    deps.userTimeZoneOf(userId).catch(() => undefined),
    ms,
  );
  return zone ?? "your Slack time zone";
}

/** Edit (Home): opens the watch's modal, filled in. */
export function watchEditAction(deps: WatchActionsDeps, refreshHome: RefreshHome): ButtonListener {
  return async ({ ack, action, body }) => {
    await ack();
    const userId = body.user.id;
    const ref = decodeState(itemRefSchema, action.value);
    try {
      const w = ref ? await deps.watches.get(userId, ref.i) : undefined;
      if (!w) {
        await refreshHome(userId, "That watch was stopped meanwhile.");
        return;
      }
      const timeZone = await zoneWithin(deps, userId, ZONE_WAIT_MS);
      await deps.slack.openView({ trigger_id: body.trigger_id, view: renderWatchModal(w, { timeZone }) });
    } catch (err) {
      deps.logger.error({ err, user: userId }, "watch edit: the modal did not open");
    }
  };
}

/**
 * The Edit modal's Save: errors go inside the fields they are about and the modal stays open;
 * a valid form replaces the watch (keeping its number), the modal closes and Home says so.
 */
export function watchEditSubmit(deps: WatchActionsDeps, refreshHome: RefreshHome): ViewListener {
  return async ({ ack, body, view }) => {
    const userId = body.user.id;
    const ref = decodeState(itemRefSchema, view.private_metadata);
    const current = ref ? await deps.watches.get(userId, ref.i) : undefined;
    if (!current) {
      await ack({
        response_action: "errors",
        errors: { [WATCH_FIELDS.words]: "This watch was stopped meanwhile." },
      });
      return;
    }
    const form = readWatchForm(view.state.values as FormValues);
    if (!form.ok) {
      await ack({ response_action: "errors", errors: form.errors });
      return;
    }
    let group: WatchSpec["group"];
    const sameGroup =
      current.group &&
      [current.group.name, current.group.id].some((x) => x.toLowerCase() === form.groupRef.toLowerCase());
    if (sameGroup) group = current.group;
    else if (form.groupRef) {
      try {
        // Slack waits 3 s for the answer to a Save: a slow service is told, not waited for.
        const found = await within(resolveGroup(deps.insight, form.groupRef), GROUP_WAIT_MS);
        if (!found) {
          await ack({
            response_action: "errors",
            errors: { [WATCH_FIELDS.group]: "The chat groups took too long to read. Try Save again." },
          });
          return;
        }
        if (!found.ok) {
          await ack({
            response_action: "errors",
            errors: { [WATCH_FIELDS.group]: found.reply.slice(0, 300) },
          });
          return;
        }
        group = { id: found.group.id, name: found.group.name };
      } catch (err) {
        await deps.reportInsightError(err);
        await ack({
          response_action: "errors",
          errors: { [WATCH_FIELDS.group]: "The chat groups could not be read just now. Try Save again." },
        });
        return;
      }
    }
    const spec: WatchSpec = {
      words: form.words,
      ...(group ? { group } : {}),
      filters: form.filters,
      ...(form.daily !== undefined ? { daily: form.daily } : {}),
      ...(form.quiet ? { quiet: form.quiet } : {}),
    };
    const saved = await deps.watches.replace(userId, current.id, spec);
    await ack();
    deps.logger.info({ user: userId, watch: current.id, saved }, "watch edited");
    await refreshHome(
      userId,
      saved
        ? `${EMOJI.ok} Watch saved: ${escapeAndTruncate(describeWatch(spec), 300)}.`
        : "That watch was stopped meanwhile.",
    ).catch((err: unknown) => deps.logger.warn({ err }, "watch edit: Home not refreshed"));
  };
}
