import { questionStatusLabel, sentimentLabel, type Tone } from "./sentiment.js";
import type { ThreadDigest } from "./thread-digest.js";

/**
 * A channel's subscription filters. Every criterion given must hold (AND); within
 * `sentiments` and `keywords` any one value is enough (OR); exclusions always win.
 */
export interface SubscriptionFilters {
  /** Canonical tones: positive, negative, neutral, mixed. */
  sentiments?: string[];
  questions?: boolean;
  unanswered?: boolean;
  minMessages?: number;
  keywords?: string[];
  /** Never threads with one of these tones; exclusions always win over inclusions. */
  excludeSentiments?: string[];
  /** Never threads with any of these keywords (same whole-word matching as `keywords`). */
  excludeKeywords?: string[];
  minParticipants?: number;
}

/** What a filter looks at: the digest's fields (a listing item maps onto them too). */
export type FilterSubject = Pick<
  ThreadDigest,
  | "title"
  | "summary"
  | "sentiment"
  | "keywords"
  | "messageCount"
  | "participantCount"
  | "isQuestionLed"
  | "questionResponseStatus"
>;

const TONES = ["positive", "negative", "neutral", "mixed"] as const;
export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 100;

// --- Matching -------------------------------------------------------------------------------

/** Lower case without accents ("Café" and "cafe" are one word): NFD, then marks dropped. */
export const foldText = (s: string): string =>
  s
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();

const wordsOf = (s: string): string[] => foldText(s).match(/[\p{L}\p{N}]+/gu) ?? [];

/** Whether `needle`'s words occur in `hay`, consecutively. */
function containsPhrase(hay: string[], needle: string[]): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * A keyword matches as whole words, case- and accent-insensitively, in any digest keyword,
 * the title or the summary ("refund" matches "Refund failed", not "refunds"; "cafe" matches
 * "Café"). A keyword made only of symbols (an emoji) is looked for as a substring instead.
 */
export function matchesKeyword(
  d: Pick<FilterSubject, "keywords" | "title" | "summary">,
  keyword: string,
): boolean {
  const needle = wordsOf(keyword);
  const texts = [...d.keywords, d.title, d.summary ?? ""];
  if (needle.length === 0) {
    const k = foldText(keyword.trim());
    return k !== "" && texts.some((t) => foldText(t).includes(k));
  }
  return texts.some((t) => containsPhrase(wordsOf(t), needle));
}

const toneOf = (s: string | undefined): Tone => (s === undefined ? "unknown" : sentimentLabel(s).tone);
const tonesOf = (list: readonly string[]): string[] =>
  list.map((s) => {
    const t = toneOf(s);
    return t === "unknown" ? s : t;
  });

/** One criterion: the words people read and the test, built together so they never disagree. */
export interface FilterClause {
  /** Which field of the filters this clause comes from. */
  key: keyof SubscriptionFilters;
  text: string;
  /** `exclude` clauses remove; the others must all hold. */
  kind: "include" | "exclude";
  test(d: FilterSubject): boolean;
}

const orList = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1) ?? ""}`;

/**
 * The filters as clauses, in the order people read them. Values the digest does not know yet
 * do not pass an inclusion (a thread without sentiment fails a sentiment filter now and is
 * posted when the re-enrichment brings a matching one) and do not trigger an exclusion (a
 * thread is excluded for what is known of it, never for what is missing).
 * `unanswered` means question-led and not (yet) answered: unanswered, partially answered,
 * pending and unknown statuses all count.
 */
export function filterClauses(f: SubscriptionFilters): FilterClause[] {
  const out: FilterClause[] = [];
  if (f.sentiments && f.sentiments.length > 0) {
    const wanted = new Set<Tone>(f.sentiments.map(toneOf));
    out.push({
      key: "sentiments",
      kind: "include",
      text: `sentiment ${orList(tonesOf(f.sentiments))}`,
      test: (d) => {
        const tone = toneOf(d.sentiment);
        return tone !== "unknown" && wanted.has(tone);
      },
    });
  }
  if (f.excludeSentiments && f.excludeSentiments.length > 0) {
    const unwanted = new Set<Tone>(f.excludeSentiments.map(toneOf));
    out.push({
      key: "excludeSentiments",
      kind: "exclude",
      text: `never ${orList(tonesOf(f.excludeSentiments))}`,
      test: (d) => unwanted.has(toneOf(d.sentiment)) && toneOf(d.sentiment) !== "unknown",
    });
  }
  if (f.unanswered) {
    out.push({
      key: "unanswered",
      kind: "include",
      text: "unanswered questions only",
      test: (d) =>
        d.isQuestionLed === true && questionStatusLabel(d.questionResponseStatus).status !== "answered",
    });
  } else if (f.questions) {
    out.push({
      key: "questions",
      kind: "include",
      text: "questions only",
      test: (d) => d.isQuestionLed === true,
    });
  }
  if (f.minMessages !== undefined) {
    const min = f.minMessages;
    out.push({
      key: "minMessages",
      kind: "include",
      text: `≥ ${min} message${min === 1 ? "" : "s"}`,
      test: (d) => d.messageCount !== undefined && d.messageCount >= min,
    });
  }
  if (f.minParticipants !== undefined) {
    const min = f.minParticipants;
    out.push({
      key: "minParticipants",
      kind: "include",
      text: `≥ ${min} participant${min === 1 ? "" : "s"}`,
      test: (d) => d.participantCount !== undefined && d.participantCount >= min,
    });
  }
  if (f.keywords && f.keywords.length > 0) {
    const list = f.keywords;
    out.push({
      key: "keywords",
      kind: "include",
      text: `keyword${list.length === 1 ? "" : "s"} ${orList(list)}`,
      test: (d) => list.some((k) => matchesKeyword(d, k)),
    });
  }
  if (f.excludeKeywords && f.excludeKeywords.length > 0) {
    const list = f.excludeKeywords;
    out.push({
      key: "excludeKeywords",
      kind: "exclude",
      text: `never mentioning ${orList(list)}`,
      test: (d) => list.some((k) => matchesKeyword(d, k)),
    });
  }
  return out;
}

/** Each clause with its verdict for one thread: `pass` false means it keeps the thread out. */
export function explainFilters(d: FilterSubject, f: SubscriptionFilters): { text: string; pass: boolean }[] {
  return filterClauses(f).map((c) => {
    const hit = c.test(d);
    return { text: c.text, pass: c.kind === "include" ? hit : !hit };
  });
}

/** Whether a thread passes a channel's filters: every inclusion holds and no exclusion hits. */
export function matchesFilters(d: FilterSubject, f: SubscriptionFilters): boolean {
  return explainFilters(d, f).every((c) => c.pass);
}

/** Whether any filter is set (an empty set lets every digest through). */
export function hasFilters(f: SubscriptionFilters): boolean {
  return filterClauses(f).length > 0;
}

/**
 * One line for people, e.g. "sentiment negative or mixed · questions only · ≥ 5 messages".
 * Plain text that echoes what a user typed: escape it before putting it in mrkdwn.
 */
export function describeFilters(f: SubscriptionFilters): string {
  const clauses = filterClauses(f);
  return clauses.length > 0 ? clauses.map((c) => c.text).join(" · ") : "all threads";
}

/** The filters without empty or unset fields, so stored values compare and print cleanly. */
export function normalizeFilters(f: SubscriptionFilters): SubscriptionFilters {
  const out: SubscriptionFilters = {};
  if (f.sentiments?.length) out.sentiments = [...f.sentiments];
  if (f.excludeSentiments?.length) out.excludeSentiments = [...f.excludeSentiments];
  if (f.questions) out.questions = true;
  if (f.unanswered) out.unanswered = true;
  if (f.minMessages !== undefined) out.minMessages = f.minMessages;
  if (f.minParticipants !== undefined) out.minParticipants = f.minParticipants;
  if (f.keywords?.length) out.keywords = [...f.keywords];
  if (f.excludeKeywords?.length) out.excludeKeywords = [...f.excludeKeywords];
  return out;
}

/** The canonical tones a sentiment filter accepts, for help texts. */
export const FILTER_TONES: readonly string[] = TONES;

/**
 * Whether a thread fails these filters on its thresholds alone (`--min-messages`,
 * `--min-participants`): it may pass once it grows, so its counts are looked at again then.
 */
export function failsOnlyOnThresholds(d: FilterSubject, f: SubscriptionFilters): boolean {
  if (f.minMessages === undefined && f.minParticipants === undefined) return false;
  const { minMessages: _messages, minParticipants: _participants, ...rest } = f;
  return matchesFilters(d, rest) && !matchesFilters(d, f);
}
