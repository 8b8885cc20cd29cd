import type { Range } from "../insight/schemas.js";

/*
 * The date ranges people type for `threads`: the service's own names (`last30Days`), the
 * same in words (`last 30 days`), and short forms (`7d`, `30d`, `3m`, `6m`, `all`). The
 * service knows only its five ranges, so every spelling maps onto one of them.
 */

export const DEFAULT_RANGE: Range = "last7Days";

/** Spelling (lower case, no spaces, `-` or `_`) -> range. */
const SPELLINGS: Record<string, Range> = {};
const add = (range: Range, ...words: string[]) => {
  for (const w of words) SPELLINGS[w] = range;
};
add("last7Days", "last7days", "past7days", "7d", "7days", "1w", "1week", "week", "lastweek", "pastweek");
add(
  "last30Days",
  "last30days",
  "past30days",
  "30d",
  "30days",
  "1m",
  "1month",
  "month",
  "lastmonth",
  "pastmonth",
);
add("last3Months", "last3months", "past3months", "3m", "3months", "90d", "90days", "quarter", "lastquarter");
add("last6Months", "last6months", "past6months", "6m", "6months", "180d", "180days");
add("allTime", "alltime", "all", "ever", "everything");

const squash = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, "");

/** Words people type meaning a period that is not one of ours ("last2Weeks", "14d", "thisMonth"). */
const RANGE_LIKE =
  /^(?:(?:last|past|this|all)\d*(?:days?|weeks?|months?|years?|time)|\d+(?:d|w|m|y|days?|weeks?|months?|years?))$/;

/** One range as typed (one or several words), or undefined. */
export function parseRange(text: string | undefined): Range | undefined {
  if (!text) return undefined;
  return SPELLINGS[squash(text)];
}

export type RangeTake =
  | { kind: "range"; range: Range; rest: string[] }
  | { kind: "none"; rest: string[] }
  | { kind: "bad"; words: string; rest: string[] };

/**
 * Finds a range at the start (or, when more words follow the group, at the end) of the words,
 * up to three words long ("last 30 days"). A word that looks like a period but is none is
 * reported as bad rather than taken for a group name.
 */
export function takeRange(words: readonly string[]): RangeTake {
  for (let n = Math.min(3, words.length); n >= 1; n--) {
    const r = parseRange(words.slice(0, n).join(" "));
    if (r) return { kind: "range", range: r, rest: words.slice(n) };
  }
  for (let n = Math.min(3, words.length - 1); n >= 1; n--) {
    const r = parseRange(words.slice(-n).join(" "));
    if (r) return { kind: "range", range: r, rest: words.slice(0, -n) };
  }
  for (let n = Math.min(3, words.length); n >= 1; n--) {
    const lead = words.slice(0, n).join(" ");
    if (RANGE_LIKE.test(squash(lead))) return { kind: "bad", words: lead, rest: words.slice(n) };
  }
  // "Lumen DB Support 2w": a period that is none after the group, not the group's last word.
  for (let n = Math.min(3, words.length - 1); n >= 1; n--) {
    const tail = words.slice(-n).join(" ");
    if (RANGE_LIKE.test(squash(tail))) return { kind: "bad", words: tail, rest: words.slice(0, -n) };
  }
  return { kind: "none", rest: [...words] };
}

/** The ranges in the words people read, for help and error replies. */
export const RANGE_HELP = "`7d` (default), `30d`, `3m`, `6m`, `all`, or words such as `last 30 days`";
