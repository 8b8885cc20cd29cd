import { questionStatusLabel, sentimentLabel, type Tone } from "./sentiment.js";
import type { ThreadDigest } from "./thread-digest.js";

/**
 * A channel's subscription filters. Every criterion given must hold (AND); within
 * `sentiments` and `keywords` any one value is enough (OR).
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

const TONES = ["positive", "negative", "neutral", "mixed"] as const;
const MAX_KEYWORDS = 20;
const MAX_KEYWORD_LENGTH = 100;

// --- Matching -------------------------------------------------------------------------------

const wordsOf = (s: string): string[] => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Whether `needle`'s words occur in `hay`, consecutively. */
function containsPhrase(hay: string[], needle: string[]): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * A keyword matches as whole words, case-insensitively, in any digest keyword, the title
 * or the summary ("refund" matches "Refund failed", not "refunds"). A keyword made only of
 * symbols (an emoji) is looked for as a substring instead.
 */
function matchesKeyword(d: ThreadDigest, keyword: string): boolean {
  const needle = wordsOf(keyword);
  const texts = [...d.keywords, d.title, d.summary ?? ""];
  if (needle.length === 0) {
    const k = keyword.trim().toLowerCase();
    return k !== "" && texts.some((t) => t.toLowerCase().includes(k));
  }
  return texts.some((t) => containsPhrase(wordsOf(t), needle));
}

/**
 * Whether a digest passes a channel's filters.
 *
 * Values the digest does not know yet do not match: a thread whose sentiment has not come
 * (the listing lacked it) fails a sentiment filter now and is posted when the
 * re-enrichment brings a matching one; likewise an unknown message count fails
 * `minMessages` and an unknown `isQuestionLed` fails `questions`/`unanswered`.
 * `unanswered` means question-led and not (yet) answered: unanswered, partially answered,
 * pending and unknown statuses all count.
 */
export function matchesFilters(d: ThreadDigest, f: SubscriptionFilters): boolean {
  if (f.sentiments && f.sentiments.length > 0) {
    if (d.sentiment === undefined) return false;
    const tone = sentimentLabel(d.sentiment).tone;
    const wanted = new Set<Tone>(f.sentiments.map((s) => sentimentLabel(s).tone));
    if (tone === "unknown" || !wanted.has(tone)) return false;
  }
  if (f.questions && d.isQuestionLed !== true) return false;
  if (f.unanswered) {
    if (d.isQuestionLed !== true) return false;
    if (questionStatusLabel(d.questionResponseStatus).status === "answered") return false;
  }
  if (f.minMessages !== undefined && (d.messageCount === undefined || d.messageCount < f.minMessages)) {
    return false;
  }
  if (f.keywords && f.keywords.length > 0 && !f.keywords.some((k) => matchesKeyword(d, k))) return false;
  return true;
}

// --- Parsing --------------------------------------------------------------------------------

export type ParseFiltersResult = { ok: true; filters: SubscriptionFilters } | { ok: false; error: string };

const FLAGS = ["--sentiment", "--questions", "--unanswered", "--min-messages", "--keywords"] as const;
const USAGE = FLAGS.join(", ");

/**
 * Slack clients on macOS and iOS turn a typed "--" into an en or em dash; accept those, and
 * the `--flag=value` form.
 */
function asFlag(token: string): { flag: string; inline: string | undefined } | undefined {
  const m = /^(?:--|[\u2013\u2014]-?)([a-z][a-z-]*)(?:=(.*))?$/i.exec(token);
  if (!m || m[1] === undefined) return undefined;
  return { flag: `--${m[1].toLowerCase()}`, inline: m[2] };
}

/** Whether a word of a command starts a filter flag (so what comes before it names the group). */
export const isFlagToken = (token: string): boolean => asFlag(token) !== undefined;

/** Whether any filter is set (an empty set lets every digest through). */
export function hasFilters(f: SubscriptionFilters): boolean {
  return Boolean(
    f.sentiments?.length || f.questions || f.unanswered || f.minMessages !== undefined || f.keywords?.length,
  );
}

/** "negative, mixed" / "dark mode,billing" (possibly split over tokens) -> items. */
function listItems(raw: string): string[] {
  return raw
    .split(",")
    .map((s) =>
      s
        .trim()
        .replace(/^["'“”‘’]+|["'“”‘’]+$/g, "")
        .trim(),
    )
    .filter((s) => s !== "");
}

function addUnique(into: string[] | undefined, items: string[]): string[] {
  const out = [...(into ?? [])];
  for (const i of items) if (!out.some((o) => o.toLowerCase() === i.toLowerCase())) out.push(i);
  return out;
}

/**
 * Parses `[--sentiment negative,mixed] [--questions] [--unanswered] [--min-messages N]
 * [--keywords a,b]`. List values may contain spaces ("--keywords dark mode, billing"): they
 * run until the next flag. A repeated list flag adds to the list; errors are one sentence
 * for the Slack user.
 */
export function parseFilterArgs(tokens: string[]): ParseFiltersResult {
  const filters: SubscriptionFilters = {};
  const words = tokens.map((t) => t.trim()).filter((t) => t !== "");
  let i = 0;
  // The value of a flag: its `=value`, else the following tokens up to the next flag.
  const takeValue = (inline: string | undefined, single: boolean): string => {
    if (inline !== undefined) return inline;
    const parts: string[] = [];
    while (i < words.length && !asFlag(words[i] ?? "")) {
      parts.push(words[i] ?? "");
      i++;
      if (single) break;
    }
    return parts.join(" ");
  };

  while (i < words.length) {
    const token = words[i] ?? "";
    i++;
    const parsed = asFlag(token);
    if (!parsed) {
      return { ok: false, error: `Unexpected "${token}": filters start with --, like --sentiment negative.` };
    }
    const { flag, inline } = parsed;
    switch (flag) {
      case "--sentiment":
      case "--sentiments": {
        const items = listItems(takeValue(inline, false));
        if (items.length === 0) {
          return {
            ok: false,
            error:
              "--sentiment needs one or more of positive, negative, neutral, mixed, like --sentiment negative,mixed.",
          };
        }
        const tones: string[] = [];
        for (const item of items) {
          const tone = sentimentLabel(item).tone;
          if (tone === "unknown") {
            return {
              ok: false,
              error: `"${item}" is not a sentiment I know: use positive, negative, neutral or mixed.`,
            };
          }
          tones.push(tone);
        }
        filters.sentiments = addUnique(filters.sentiments, tones);
        break;
      }
      case "--questions":
      case "--question":
        if (inline !== undefined) return { ok: false, error: "--questions takes no value." };
        filters.questions = true;
        break;
      case "--unanswered":
        if (inline !== undefined) return { ok: false, error: "--unanswered takes no value." };
        filters.unanswered = true;
        break;
      case "--min-messages": {
        const value = takeValue(inline, true).trim();
        const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
        if (!Number.isSafeInteger(n) || n < 1) {
          return { ok: false, error: "--min-messages needs a whole number, like --min-messages 5." };
        }
        filters.minMessages = n;
        break;
      }
      case "--keywords":
      case "--keyword": {
        const items = listItems(takeValue(inline, false));
        if (items.length === 0) {
          return {
            ok: false,
            error: "--keywords needs one or more words, like --keywords refund,dark mode.",
          };
        }
        if (items.some((k) => k.length > MAX_KEYWORD_LENGTH)) {
          return { ok: false, error: `Keywords can be at most ${MAX_KEYWORD_LENGTH} characters long.` };
        }
        const keywords = addUnique(filters.keywords, items);
        if (keywords.length > MAX_KEYWORDS) {
          return { ok: false, error: `Up to ${MAX_KEYWORDS} keywords can be given.` };
        }
        filters.keywords = keywords;
        break;
      }
      default:
        return { ok: false, error: `Unknown filter "${token}": use ${USAGE}.` };
    }
  }
  return { ok: true, filters };
}

// --- Describing -----------------------------------------------------------------------------

const orList = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1) ?? ""}`;

/**
 * One line for people, e.g. "sentiment negative or mixed · questions only · ≥ 5 messages".
 * Plain text that echoes what a user typed: escape it before putting it in mrkdwn.
 */
export function describeFilters(f: SubscriptionFilters): string {
  const parts: string[] = [];
  if (f.sentiments && f.sentiments.length > 0) {
    const tones = f.sentiments.map((s) => {
      const t = sentimentLabel(s).tone;
      return t === "unknown" ? s : t;
    });
    parts.push(`sentiment ${orList(tones)}`);
  }
  if (f.unanswered) parts.push("unanswered questions only");
  else if (f.questions) parts.push("questions only");
  if (f.minMessages !== undefined) parts.push(`≥ ${f.minMessages} message${f.minMessages === 1 ? "" : "s"}`);
  if (f.keywords && f.keywords.length > 0) {
    parts.push(`keyword${f.keywords.length === 1 ? "" : "s"} ${orList(f.keywords)}`);
  }
  return parts.length > 0 ? parts.join(" · ") : "all threads";
}

/** The canonical tones a sentiment filter accepts, for help texts. */
export const FILTER_TONES: readonly string[] = TONES;
