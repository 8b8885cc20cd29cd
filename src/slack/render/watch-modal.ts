import { FILTER_TONES } from "../../domain/filters.js";
import { formatClockTime } from "../../domain/local-time.js";
import type { Watch } from "../../domain/watch.js";
import { plainText } from "../mrkdwn.js";
import { encodeItemRef, WATCH_MODAL_CALLBACK } from "../personal-ids.js";
import type { ViewPayload } from "./view-payload.js";

/*
 * The Edit modal of one watch (Home): the words, the group and every filter of `subscribe`, the
 * daily time and the quiet hours, filled in with what is in force. Each input's block_id is the
 * field it sets, so the submission answers errors inside the field they are about. Pure.
 */

export const WATCH_FIELDS = {
  words: "words",
  group: "group",
  keywords: "keywords",
  sentiments: "sentiments",
  excludeSentiments: "exclude_sentiments",
  questions: "questions",
  excludeKeywords: "exclude_keywords",
  minMessages: "min_messages",
  minParticipants: "min_participants",
  daily: "daily",
  quietFrom: "quiet_from",
  quietTo: "quiet_to",
} as const;
/** Every input has this action id; the block id tells them apart. */
export const WATCH_INPUT = "value";

type Option = { text: { type: "plain_text"; text: string }; value: string };
const option = (value: string, text: string): Option => ({ text: { type: "plain_text", text }, value });
const label = (text: string) => ({ type: "plain_text" as const, text });

const TONE_OPTIONS = FILTER_TONES.map((t) => option(t, t[0]?.toUpperCase() + t.slice(1)));
const QUESTION_OPTIONS = [
  option("all", "All threads"),
  option("questions", "Question-led threads only"),
  option("unanswered", "Unanswered questions only"),
];

function text(blockId: string, name: string, current: string, o: { hint: string; placeholder: string }) {
  return {
    type: "input",
    block_id: blockId,
    optional: true,
    label: label(name),
    hint: label(o.hint),
    element: {
      type: "plain_text_input",
      action_id: WATCH_INPUT,
      placeholder: label(o.placeholder),
      ...(current ? { initial_value: current } : {}),
    },
  };
}

function tones(blockId: string, name: string, current: readonly string[] | undefined, hint: string) {
  const initial = TONE_OPTIONS.filter((o) => current?.includes(o.value));
  return {
    type: "input",
    block_id: blockId,
    optional: true,
    label: label(name),
    hint: label(hint),
    element: {
      type: "multi_static_select",
      action_id: WATCH_INPUT,
      placeholder: label("Any"),
      options: TONE_OPTIONS,
      ...(initial.length > 0 ? { initial_options: initial } : {}),
    },
  };
}

function time(blockId: string, name: string, current: number | undefined, hint: string) {
  return {
    type: "input",
    block_id: blockId,
    optional: true,
    label: label(name),
    hint: label(hint),
    element: {
      type: "timepicker",
      action_id: WATCH_INPUT,
      placeholder: label("Off"),
      ...(current !== undefined ? { initial_time: formatClockTime(current) } : {}),
    },
  };
}

/** A watch's words as typed: a phrase of several words goes back in quotes. */
export const wordsAsTyped = (words: readonly string[]): string =>
  words.map((w) => (/\s/.test(w) ? `"${w}"` : w)).join(" ");

/** The Edit modal of one watch, filled in. `timeZone`: the person's, which the times are in. */
export function renderWatchModal(w: Watch, o: { timeZone: string }): ViewPayload {
  const f = w.filters;
  const questions = f.unanswered ? "unanswered" : f.questions ? "questions" : "all";
  const initialQuestions = QUESTION_OPTIONS.find((q) => q.value === questions);
  const blocks = [
    {
      type: "section",
      text: {
        type: "plain_text",
        text: plainText(
          "A thread matches when every word is in its title, summary or keywords and it passes the filters. Exclusions always win.",
          2_000,
        ),
      },
    },
    text(WATCH_FIELDS.words, "Words", wordsAsTyped(w.words), {
      hint: 'Every one must appear; "quotes" keep a phrase together. Empty: any words.',
      placeholder: "refund failed",
    }),
    text(WATCH_FIELDS.group, "Chat group", w.group ? w.group.name || w.group.id : "", {
      hint: "Its name or id, as in /insight groups. Empty: every group.",
      placeholder: "Lumen DB Support",
    }),
    text(WATCH_FIELDS.keywords, "Any of these keywords", (f.keywords ?? []).join(", "), {
      hint: "Comma-separated; one is enough. Whole words in keywords, title or summary.",
      placeholder: "refund, chargeback",
    }),
    tones(WATCH_FIELDS.sentiments, "Only these sentiments", f.sentiments, "Empty: any sentiment."),
    tones(
      WATCH_FIELDS.excludeSentiments,
      "Never these sentiments",
      f.excludeSentiments,
      "Empty: none excluded.",
    ),
    {
      type: "input",
      block_id: WATCH_FIELDS.questions,
      label: label("Questions"),
      element: {
        type: "radio_buttons",
        action_id: WATCH_INPUT,
        options: QUESTION_OPTIONS,
        ...(initialQuestions ? { initial_option: initialQuestions } : {}),
      },
    },
    text(WATCH_FIELDS.excludeKeywords, "Never threads mentioning", (f.excludeKeywords ?? []).join(", "), {
      hint: "Comma-separated; a thread mentioning any of these is left out.",
      placeholder: "giveaway, test",
    }),
    text(WATCH_FIELDS.minMessages, "At least this many messages", f.minMessages?.toString() ?? "", {
      hint: "A whole number; empty: no minimum.",
      placeholder: "5",
    }),
    text(
      WATCH_FIELDS.minParticipants,
      "At least this many participants",
      f.minParticipants?.toString() ?? "",
      {
        hint: "A whole number; empty: no minimum.",
        placeholder: "3",
      },
    ),
    time(
      WATCH_FIELDS.daily,
      "One DM a day at",
      w.daily,
      `Empty: a DM for each match. Your time zone: ${o.timeZone}.`,
    ),
    time(
      WATCH_FIELDS.quietFrom,
      "Quiet hours from",
      w.quiet?.from,
      "DMs wait during quiet hours; empty: none.",
    ),
    time(
      WATCH_FIELDS.quietTo,
      "Quiet hours until",
      w.quiet?.to,
      "They come gathered in one DM when these end.",
    ),
  ];
  return {
    type: "modal",
    callback_id: WATCH_MODAL_CALLBACK,
    private_metadata: encodeItemRef({ i: w.id }),
    title: label("Edit watch"),
    submit: label("Save"),
    close: label("Cancel"),
    blocks,
  };
}
