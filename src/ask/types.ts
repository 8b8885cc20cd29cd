import type { Thread } from "../insight/schemas.js";
import type { ToneCounts } from "../domain/weekly-stats.js";
import type { RatedTone } from "../domain/weekly-compare.js";
import type { AskRange } from "./time-range.js";

/*
 * What the assistant understood and what it answers, as plain data: the renderer
 * (slack/render/ask-answer.ts) reads these and nothing else. No I/O here.
 */

export interface AskGroup {
  id: string;
  name: string;
}

/** Where the groups came from, said in the answer's first line. */
export type GroupScope = "named" | "channel" | "workspace" | "kept";

/** A question read, before its groups are known. */
export interface Understanding {
  range: AskRange;
  /** The period was not named: kept from the conversation, or the default. */
  rangeSource: "said" | "kept" | "default";
  /** Phrases that may name a group, the likeliest first (rule 13's resolver decides). */
  groupRefs: GroupRef[];
  /** A Slack channel named in the question (`#support`): its groups. */
  channelId?: string;
  tone?: RatedTone;
  /** Question-led threads not answered yet. */
  unanswered: boolean;
  /** Question-led threads. */
  questionsOnly: boolean;
  /** Words for the service's semantic search; none: every thread of the period. */
  topic?: string;
}

export interface GroupRef {
  /** The words as typed, e.g. "Lumen DB Support". */
  ref: string;
  /** Said with "group" ("the Lumen DB group"): a name that resolves to none is refused, not searched for. */
  explicit: boolean;
  /** The topic when these words are a group's name (they leave the topic). */
  topic?: string;
}

/** A question ready to answer: its groups known. */
export interface AskQuestion {
  groups: AskGroup[];
  scope: GroupScope;
  /** The channel whose groups these are (scope "channel"): named in the answer. */
  scopeChannelId?: string;
  range: AskRange;
  tone?: RatedTone;
  unanswered: boolean;
  questionsOnly: boolean;
  topic?: string;
}

/** One matching thread, with the group it belongs to. Untrusted text: escape when rendering. */
export interface AnswerThread {
  groupId: string;
  groupName: string;
  thread: Thread;
}

export interface PeriodFigures {
  threads: number;
  /** Sum of the threads' message counts. */
  messages: number;
  /** Threads whose listing item had no message count (left out of `messages`). */
  withoutCount: number;
  tones: ToneCounts;
  /** Question-led threads not answered yet, among the matching ones. */
  unanswered: number;
}

export interface AskAnswer {
  question: AskQuestion;
  current: PeriodFigures;
  previous: PeriodFigures;
  /** Matching threads of each group with any (several groups only), most first. */
  byGroup: { name: string; threads: number }[];
  /** Every matching thread of the period, the most relevant first. */
  threads: AnswerThread[];
  /** Groups that could not be read, with the reason in plain words. */
  failures: { name: string; reply: string }[];
  /** Bounds that were reached: what the figures could not include. */
  limits: {
    /** Groups whose listing was read only down to the page cap, with how many threads were read. */
    cappedGroups: { name: string; read: number }[];
    /** The search's answer was cut at its cap: more threads may be about the topic. */
    searchCapped: boolean;
    /** Groups left out beyond the cap of groups one answer reads. */
    groupsLeftOut: number;
  };
}
