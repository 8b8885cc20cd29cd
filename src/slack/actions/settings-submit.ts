import type { Middleware, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { normalizeFilters, type SubscriptionFilters } from "../../domain/filters.js";
import {
  checkFilters,
  describeSubscription,
  FILTER_PROBLEMS,
  parseThreshold,
} from "../../domain/subscription-options.js";
import {
  CARD_FORMATS,
  DEFAULT_DELIVERY,
  DELIVERY_MODES,
  DIGEST_PERIODS,
  deliveryOf,
  type Delivery,
  type Subscription,
} from "../../domain/subscription.js";
import type { Logger } from "../../log.js";
import type { SubscriptionStore } from "../../store/subscriptions.js";
import { ADMIN_ONLY_REFUSAL, mayChangeConfig } from "../authorize.js";
import { decodeState } from "../button-values.js";
import type { SlackApi } from "../client.js";
import { escapeMrkdwn } from "../mrkdwn.js";
import { SETTINGS_FIELDS, SETTINGS_INPUT } from "../render/settings-modal.js";
import { subscriptionRefSchema } from "../settings-ids.js";

/** What saving the modal reads, writes and posts. */
export interface SettingsSubmitDeps {
  subscriptions: Pick<SubscriptionStore, "get" | "put">;
  slack: Pick<SlackApi, "postEphemeral" | "postMessage">;
  adminUserIds: readonly string[];
  /** The channel's zone, which digest periods align on (said in the confirmation). */
  timeZoneOf: (channelId: string) => Promise<string>;
  /** Brings the channel's pending digest and period schedules in line with its subscriptions. */
  syncDigest: (channelId: string, groupId: string) => Promise<void>;
  logger: Logger;
}

/** One input's state as Slack sends it in `view.state.values[block][action]`. */
export interface InputState {
  type?: string;
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: { value: string }[];
}
export type FormValues = Record<string, Record<string, InputState>>;

export type FormResult =
  | { ok: true; filters: SubscriptionFilters; delivery: Delivery }
  | { ok: false; errors: Record<string, string> };

const input = (v: FormValues, block: string): InputState | undefined => v[block]?.[SETTINGS_INPUT];
const selected = (v: FormValues, block: string) => input(v, block)?.selected_option?.value;
const many = (v: FormValues, block: string) => (input(v, block)?.selected_options ?? []).map((o) => o.value);
const typed = (v: FormValues, block: string) => (input(v, block)?.value ?? "").trim();
const list = (raw: string) =>
  raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .filter((s, i, all) => all.findIndex((x) => x.toLowerCase() === s.toLowerCase()) === i);

/**
 * Reads and checks the modal's values: the settings, or one sentence per field that is
 * wrong (shown under that field by Slack). A delivery setting the modal did not show (it does
 * not apply to the chosen mode) keeps its value in `current`. Pure.
 */
export function readSettingsForm(v: FormValues, current: Delivery = DEFAULT_DELIVERY): FormResult {
  const errors: Record<string, string> = {};
  const F = SETTINGS_FIELDS;
  const mode = DELIVERY_MODES.find((m) => m === selected(v, F.mode));
  if (!mode) errors[F.mode] = "Choose a mode.";
  const every = DIGEST_PERIODS.find((p) => p === selected(v, F.every)) ?? current.every;
  const format = CARD_FORMATS.find((p) => p === selected(v, F.format)) ?? current.format;
  const replies = input(v, F.replies) ? selected(v, F.replies) === "on" : current.replies;

  const filters: SubscriptionFilters = {
    sentiments: many(v, F.sentiments),
    excludeSentiments: many(v, F.excludeSentiments),
    questions: selected(v, F.questions) === "questions",
    unanswered: selected(v, F.questions) === "unanswered",
    keywords: list(typed(v, F.keywords)),
    excludeKeywords: list(typed(v, F.excludeKeywords)),
  };
  // The same checks and the same words as the command line (rule 13).
  const blockOf = {
    sentiments: F.sentiments,
    excludeSentiments: F.excludeSentiments,
    keywords: F.keywords,
    excludeKeywords: F.excludeKeywords,
  } as const;
  for (const p of checkFilters(filters)) errors[blockOf[p.field]] ??= p.problem;
  for (const [block, field] of [
    [F.minMessages, "minMessages"],
    [F.minParticipants, "minParticipants"],
  ] as const) {
    const raw = typed(v, block);
    if (raw === "") continue;
    const n = parseThreshold(raw);
    if (n === undefined) errors[block] = FILTER_PROBLEMS.threshold(raw);
    else filters[field] = n;
  }
  if (Object.keys(errors).length > 0 || !mode) return { ok: false, errors };
  return { ok: true, filters: normalizeFilters(filters), delivery: { mode, every, format, replies } };
}

type ViewListener = Middleware<SlackViewMiddlewareArgs<ViewSubmitAction>>;

/** Tells the person what is now in force: an ephemeral in the channel, or a DM when that fails. */
async function confirm(deps: SettingsSubmitDeps, userId: string, sub: Subscription): Promise<void> {
  const inForce = describeSubscription(sub, await deps.timeZoneOf(sub.channelId));
  const text = `Settings saved for *${escapeMrkdwn(sub.groupName || sub.groupId)}* in <#${sub.channelId}>. In force: ${escapeMrkdwn(inForce)}.`;
  try {
    await deps.slack.postEphemeral({ channel: sub.channelId, user: userId, text });
  } catch (err) {
    deps.logger.info({ err, channel: sub.channelId }, "settings: ephemeral refused; sending a DM");
    await deps.slack.postMessage({ channel: userId, text }).catch((dmErr: unknown) => {
      deps.logger.warn({ err: dmErr }, "settings: the confirmation was not delivered");
    });
  }
}

/**
 * The modal's Save: errors go back into the fields (`response_action: errors`), the modal
 * stays open; a valid form is saved (a paused subscription stays paused: resuming is
 * `subscribe`'s job), the modal closes, and the person is told what is in force.
 */
export function settingsSubmitView(deps: SettingsSubmitDeps): ViewListener {
  return async ({ ack, body, view }) => {
    const userId = body.user.id;
    const ref = decodeState(subscriptionRefSchema, view.private_metadata);
    if (!mayChangeConfig(userId, deps.adminUserIds)) {
      await ack({ response_action: "errors", errors: { [SETTINGS_FIELDS.mode]: ADMIN_ONLY_REFUSAL } });
      return;
    }
    const current = ref ? await deps.subscriptions.get(ref.c, ref.g) : undefined;
    const form = readSettingsForm(
      view.state.values as FormValues,
      current ? deliveryOf(current) : DEFAULT_DELIVERY,
    );
    if (!form.ok) {
      await ack({ response_action: "errors", errors: form.errors });
      return;
    }
    if (!current) {
      await ack({
        response_action: "errors",
        errors: {
          [SETTINGS_FIELDS.mode]: "This channel no longer follows that chat group. See `/insight list`.",
        },
      });
      return;
    }
    const saved: Subscription = { ...current, filters: form.filters, delivery: form.delivery };
    await deps.subscriptions.put(saved);
    await ack();
    // After the ack (Slack's 3 seconds): a mode or period change moves the pending threads and schedules.
    await deps.syncDigest(saved.channelId, saved.groupId);
    deps.logger.info(
      { channel: saved.channelId, groupId: saved.groupId, user: userId },
      "subscription settings saved",
    );
    await confirm(deps, userId, saved);
  };
}
