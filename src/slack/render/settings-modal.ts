import { FILTER_TONES } from "../../domain/filters.js";
import {
  deliveryOf,
  type DeliveryMode,
  type DigestEvery,
  type Subscription,
} from "../../domain/subscription.js";
import { digestTimes } from "../../domain/subscription-options.js";
import { plainText } from "../mrkdwn.js";
import { encodeSubscriptionRef, SETTINGS_MODAL_CALLBACK } from "../settings-ids.js";
import type { ViewPayload } from "./view-payload.js";

/*
 * The settings modal of one subscription: delivery (mode, period, format, replies) and every
 * filter, with the current values filled in. Each input's block_id is the field it sets, so
 * the submission handler reads them by name and answers errors per field.
 */

/** The block ids of the modal's inputs (also the keys of `response_action: errors`). */
export const SETTINGS_FIELDS = {
  mode: "mode",
  every: "every",
  format: "format",
  replies: "replies",
  sentiments: "sentiments",
  excludeSentiments: "exclude_sentiments",
  questions: "questions",
  keywords: "keywords",
  excludeKeywords: "exclude_keywords",
  minMessages: "min_messages",
  minParticipants: "min_participants",
} as const;
/** Every input has this action id; the block id tells them apart. */
export const SETTINGS_INPUT = "value";

type Option = { text: { type: "plain_text"; text: string }; value: string };
const option = (value: string, text: string): Option => ({ text: { type: "plain_text", text }, value });
const label = (text: string) => ({ type: "plain_text" as const, text });

const MODE_OPTIONS = [
  option("realtime", "A card per thread, as soon as it is summarised"),
  option("digest", "One batched digest per period"),
  option("summary", "Only the weekly summary"),
];
// With the times they post at, as `list` and the replies say them (digestTimes).
const EVERY_TEXT: Record<DigestEvery, string> = {
  "1h": `Every hour, ${digestTimes("1h")}`,
  "2h": `Every 2 hours, ${digestTimes("2h")}`,
  "4h": `Every 4 hours, ${digestTimes("4h")}`,
  "8h": `Every 8 hours, ${digestTimes("8h")}`,
  "12h": `Every 12 hours, ${digestTimes("12h")}`,
  "24h": `Once a day, ${digestTimes("24h")}`,
};
const EVERY_OPTIONS = Object.entries(EVERY_TEXT).map(([v, t]) => option(v, t));
const FORMAT_OPTIONS = [option("full", "Full card"), option("compact", "Compact: one line")];
const REPLIES_OPTIONS = [option("off", "Off"), option("on", "On: new messages go as replies under the card")];
const TONE_OPTIONS = FILTER_TONES.map((t) => option(t, t[0]?.toUpperCase() + t.slice(1)));
const QUESTION_OPTIONS = [
  option("all", "All threads"),
  option("questions", "Threads that start with a question"),
  option("unanswered", "Unanswered questions only"),
];

const pick = (options: Option[], value: string): Option | undefined => options.find((o) => o.value === value);

function select(
  blockId: string,
  text: string,
  options: Option[],
  current: string,
  o: { hint?: string } = {},
): Record<string, unknown> {
  const initial = pick(options, current);
  return {
    type: "input",
    block_id: blockId,
    label: label(text),
    ...(o.hint ? { hint: label(o.hint) } : {}),
    element: {
      type: "static_select",
      action_id: SETTINGS_INPUT,
      options,
      ...(initial ? { initial_option: initial } : {}),
    },
  };
}

function radios(blockId: string, text: string, options: Option[], current: string): Record<string, unknown> {
  const initial = pick(options, current);
  return {
    type: "input",
    block_id: blockId,
    label: label(text),
    element: {
      type: "radio_buttons",
      action_id: SETTINGS_INPUT,
      options,
      ...(initial ? { initial_option: initial } : {}),
    },
  };
}

function tones(blockId: string, text: string, current: readonly string[] | undefined, hint: string) {
  const initial = TONE_OPTIONS.filter((o) => current?.includes(o.value));
  return {
    type: "input",
    block_id: blockId,
    optional: true,
    label: label(text),
    hint: label(hint),
    element: {
      type: "multi_static_select",
      action_id: SETTINGS_INPUT,
      placeholder: label("Any"),
      options: TONE_OPTIONS,
      ...(initial.length > 0 ? { initial_options: initial } : {}),
    },
  };
}

function textInput(blockId: string, text: string, current: string, o: { hint: string; placeholder: string }) {
  return {
    type: "input",
    block_id: blockId,
    optional: true,
    label: label(text),
    hint: label(o.hint),
    element: {
      type: "plain_text_input",
      action_id: SETTINGS_INPUT,
      placeholder: label(o.placeholder),
      ...(current ? { initial_value: current } : {}),
    },
  };
}

/**
 * The modal for one subscription, filled in with what is in force. Only the delivery settings
 * of the mode shown appear (the period in digest mode, card format and replies in realtime
 * mode); choosing another mode redraws it (`dispatch_action` on the mode). Pure.
 */
export function renderSettingsModal(
  sub: Subscription,
  o: { timeZone?: string; mode?: DeliveryMode } = {},
): ViewPayload {
  const d = deliveryOf(sub);
  const mode = o.mode ?? d.mode;
  const f = sub.filters;
  const name = sub.groupName || sub.groupId;
  const questions = f.unanswered ? "unanswered" : f.questions ? "questions" : "all";
  const blocks = [
    {
      type: "section",
      text: {
        type: "plain_text",
        // Plain text: a group name is shown as typed, never interpreted as mrkdwn.
        text: plainText(
          `What this channel receives from ${name}. Exclusions always win over inclusions.`,
          2_000,
        ),
      },
    },
    { type: "header", text: label("Delivery") },
    { ...select(SETTINGS_FIELDS.mode, "Mode", MODE_OPTIONS, mode), dispatch_action: true },
    ...(mode === "digest"
      ? [
          select(SETTINGS_FIELDS.every, "Digest period", EVERY_OPTIONS, d.every, {
            hint: `Times in the channel's time zone${o.timeZone ? ` (${o.timeZone})` : ""}.`,
          }),
        ]
      : []),
    ...(mode === "realtime"
      ? [
          radios(SETTINGS_FIELDS.format, "Card format", FORMAT_OPTIONS, d.format),
          radios(
            SETTINGS_FIELDS.replies,
            "Replies under the card",
            REPLIES_OPTIONS,
            d.replies ? "on" : "off",
          ),
        ]
      : []),
    { type: "header", text: label("Filters") },
    tones(SETTINGS_FIELDS.sentiments, "Only these sentiments", f.sentiments, "Empty: any sentiment."),
    tones(
      SETTINGS_FIELDS.excludeSentiments,
      "Never these sentiments",
      f.excludeSentiments,
      "Empty: none excluded.",
    ),
    radios(SETTINGS_FIELDS.questions, "Questions", QUESTION_OPTIONS, questions),
    textInput(SETTINGS_FIELDS.keywords, "Only threads mentioning", (f.keywords ?? []).join(", "), {
      hint: "Comma-separated whole words, in keywords, title or summary; case and accents ignored.",
      placeholder: "refund, dark mode",
    }),
    textInput(
      SETTINGS_FIELDS.excludeKeywords,
      "Never threads mentioning",
      (f.excludeKeywords ?? []).join(", "),
      {
        hint: "Comma-separated; a thread mentioning any of these is left out.",
        placeholder: "giveaway, test",
      },
    ),
    textInput(SETTINGS_FIELDS.minMessages, "At least this many messages", f.minMessages?.toString() ?? "", {
      hint: "A whole number; empty: no minimum.",
      placeholder: "5",
    }),
    textInput(
      SETTINGS_FIELDS.minParticipants,
      "At least this many participants",
      f.minParticipants?.toString() ?? "",
      { hint: "A whole number; empty: no minimum.", placeholder: "3" },
    ),
  ];
  return {
    type: "modal",
    callback_id: SETTINGS_MODAL_CALLBACK,
    private_metadata: encodeSubscriptionRef({ c: sub.channelId, g: sub.groupId }),
    title: label("Subscription settings"),
    submit: label("Save"),
    close: label("Cancel"),
    blocks,
  };
}
