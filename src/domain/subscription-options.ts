import {
  describeFilters,
  hasFilters,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS,
  normalizeFilters,
  type SubscriptionFilters,
} from "./filters.js";
import { periodHours } from "./digest-batch.js";
import { sentimentLabel } from "./sentiment.js";
import {
  CARD_FORMATS,
  DELIVERY_MODES,
  DIGEST_PERIODS,
  deliveryOf,
  type Delivery,
  type DigestEvery,
  type Subscription,
} from "./subscription.js";

/*
 * The option language of `subscribe` (filters and delivery) and, for its filter part, of
 * `threads`. Parsing yields a change that names only what was typed, so that running
 * `subscribe` again changes only that (docs/using.md).
 */

/** What one `subscribe` names: each field present was typed; `clearFilters` is `--all`. */
export interface SubscriptionChange {
  filters: SubscriptionFilters;
  clearFilters: boolean;
  delivery: Partial<Delivery>;
}

export type ParseOptionsResult =
  | { ok: true; change: SubscriptionChange }
  | {
      ok: false;
      /** One sentence about the first word that could not be read. */
      error: string;
      /** What was read before it, in words ("sentiment negative · digest every 4h"), or "". */
      understood: string;
    };

export const FILTER_FLAGS = [
  "--sentiment",
  "--exclude-sentiment",
  "--keywords",
  "--exclude-keywords",
  "--questions",
  "--unanswered",
  "--min-messages",
  "--min-participants",
] as const;
export const DELIVERY_FLAGS = ["--mode", "--every", "--format", "--replies"] as const;

/**
 * Slack clients on macOS and iOS turn a typed "--" into an en or em dash; accept those, and
 * the `--flag=value` form.
 */
function asFlag(token: string): { flag: string; inline: string | undefined } | undefined {
  const m = /^(?:--|[\u2013\u2014]-?)([a-z][a-z-]*)(?:=(.*))?$/i.exec(token);
  if (!m || m[1] === undefined) return undefined;
  return { flag: `--${m[1].toLowerCase()}`, inline: m[2] };
}

/** Whether a word of a command starts an option (so what comes before it names the group). */
export const isFlagToken = (token: string): boolean => asFlag(token) !== undefined;

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

const ALIASES: Record<string, string> = {
  "--sentiments": "--sentiment",
  "--exclude-sentiments": "--exclude-sentiment",
  "--not-sentiment": "--exclude-sentiment",
  "--keyword": "--keywords",
  "--exclude-keyword": "--exclude-keywords",
  "--not-keywords": "--exclude-keywords",
  "--question": "--questions",
  "--min-participant": "--min-participants",
};

const ON = new Set(["on", "yes", "true", "1"]);
const OFF = new Set(["off", "no", "false", "0"]);

/** Tones from a list, or the sentence saying which item is not one. */
function parseTones(flag: string, raw: string): { ok: true; tones: string[] } | { ok: false; error: string } {
  const items = listItems(raw);
  if (items.length === 0) {
    return {
      ok: false,
      error: `${flag} needs one or more of positive, negative, neutral, mixed, like ${flag} negative,mixed.`,
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
  return { ok: true, tones };
}

function parseKeywords(
  flag: string,
  raw: string,
  into: string[] | undefined,
): { ok: true; keywords: string[] } | { ok: false; error: string } {
  const items = listItems(raw);
  if (items.length === 0)
    return { ok: false, error: `${flag} needs one or more words, like ${flag} refund,dark mode.` };
  if (items.some((k) => k.length > MAX_KEYWORD_LENGTH))
    return { ok: false, error: FILTER_PROBLEMS.keywordTooLong };
  const keywords = addUnique(into, items);
  if (keywords.length > MAX_KEYWORDS) return { ok: false, error: FILTER_PROBLEMS.tooManyKeywords };
  return { ok: true, keywords };
}

/** A whole number from 1 to 10,000, or undefined. */
export function parseThreshold(value: string): number | undefined {
  const v = value.trim();
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1 && n <= 10_000 ? n : undefined;
}

/*
 * What the command line and the settings form both refuse, in the same words (rule 13): the
 * form shows the sentence under its field, the command after "I could not read that:".
 */
export const FILTER_PROBLEMS = {
  tooManyKeywords: `Up to ${MAX_KEYWORDS} keywords, separated by commas.`,
  keywordTooLong: `Each keyword can be at most ${MAX_KEYWORD_LENGTH} characters long.`,
  /** A threshold that is not a whole number from 1 to 10,000; `typed` is echoed (plain text). */
  threshold: (typed: string) =>
    `A whole number from 1 to 10,000, like 5 (you typed "${typed.slice(0, 20)}").`,
  /** One sentiment both wanted and excluded: nothing could ever arrive. */
  bothSentiments: (tones: readonly string[]) =>
    `${tones.join(", ")} cannot be both wanted and excluded: remove ${tones.length === 1 ? "it" : "them"} from one of the two.`,
} as const;

/** Which field a problem is about (the form puts it under that field). */
export type FilterField = "sentiments" | "excludeSentiments" | "keywords" | "excludeKeywords";

/**
 * Filters that can be saved, or one sentence per field that cannot: the checks every way of
 * setting filters shares (the command line, the settings form, a change merged into what a
 * channel already has). Pure.
 */
export function checkFilters(f: SubscriptionFilters): { field: FilterField; problem: string }[] {
  const out: { field: FilterField; problem: string }[] = [];
  const excluded = new Set((f.excludeSentiments ?? []).map((s) => s.toLowerCase()));
  const both = (f.sentiments ?? []).filter((s) => excluded.has(s.toLowerCase()));
  if (both.length > 0)
    out.push({ field: "excludeSentiments", problem: FILTER_PROBLEMS.bothSentiments(both) });
  for (const field of ["keywords", "excludeKeywords"] as const) {
    const words = f[field] ?? [];
    if (words.length > MAX_KEYWORDS) out.push({ field, problem: FILTER_PROBLEMS.tooManyKeywords });
    else if (words.some((w) => w.length > MAX_KEYWORD_LENGTH))
      out.push({ field, problem: FILTER_PROBLEMS.keywordTooLong });
  }
  return out;
}

/** "daily" / "4 hours" / "4h" / "24" -> a digest period. */
export function parseEvery(value: string): DigestEvery | undefined {
  const v = value.trim().toLowerCase().replace(/\s+/g, "");
  if (v === "daily" || v === "day" || v === "1d") return "24h";
  if (v === "hourly") return "1h";
  const m = /^(\d+)(?:h|hr|hrs|hour|hours)?$/.exec(v);
  const candidate = m ? `${m[1]}h` : v;
  return DIGEST_PERIODS.find((p) => p === candidate);
}

/**
 * Parses `subscribe`'s options. List values may contain spaces ("--keywords dark mode,
 * billing"): they run until the next flag; a repeated list flag adds to the list. With
 * `filtersOnly` (for `threads`), delivery options are refused.
 */
export function parseSubscriptionOptions(
  tokens: readonly string[],
  o: { filtersOnly?: boolean } = {},
): ParseOptionsResult {
  const filters: SubscriptionFilters = {};
  const delivery: Partial<Delivery> = {};
  let clearFilters = false;
  const words = tokens.map((t) => t.trim()).filter((t) => t !== "");
  let i = 0;
  const fail = (error: string): ParseOptionsResult => ({
    ok: false,
    error,
    understood: describeChange({ filters, clearFilters, delivery }),
  });
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
  // A switch takes no value, or an explicit on/off right after it.
  const takeSwitch = (flag: string, inline: string | undefined): boolean | string => {
    const next = inline ?? words[i];
    if (next !== undefined && (ON.has(next.toLowerCase()) || OFF.has(next.toLowerCase()))) {
      if (inline === undefined) i++;
      return ON.has(next.toLowerCase());
    }
    if (inline !== undefined) return `${flag} takes no value, or on/off, like ${flag} or ${flag} off.`;
    return true;
  };
  const usage = o.filtersOnly
    ? FILTER_FLAGS.join(", ")
    : [...FILTER_FLAGS, ...DELIVERY_FLAGS, "--all"].join(", ");

  while (i < words.length) {
    const token = words[i] ?? "";
    i++;
    const parsed = asFlag(token);
    if (!parsed) return fail(`Unexpected "${token}": options start with --, like --sentiment negative.`);
    const flag = ALIASES[parsed.flag] ?? parsed.flag;
    const { inline } = parsed;
    if (o.filtersOnly && (DELIVERY_FLAGS as readonly string[]).includes(flag)) {
      return fail(`${flag} is a subscription setting; here only filters apply (${usage}).`);
    }
    switch (flag) {
      case "--sentiment":
      case "--exclude-sentiment": {
        const r = parseTones(flag, takeValue(inline, false));
        if (!r.ok) return fail(r.error);
        if (flag === "--sentiment") filters.sentiments = addUnique(filters.sentiments, r.tones);
        else filters.excludeSentiments = addUnique(filters.excludeSentiments, r.tones);
        break;
      }
      case "--keywords":
      case "--exclude-keywords": {
        const field = flag === "--keywords" ? "keywords" : "excludeKeywords";
        const r = parseKeywords(flag, takeValue(inline, false), filters[field]);
        if (!r.ok) return fail(r.error);
        filters[field] = r.keywords;
        break;
      }
      case "--questions":
      case "--unanswered": {
        const v = takeSwitch(flag, inline);
        if (typeof v === "string") return fail(v);
        filters[flag === "--questions" ? "questions" : "unanswered"] = v;
        break;
      }
      case "--min-messages":
      case "--min-participants": {
        const raw = takeValue(inline, true);
        const n = parseThreshold(raw);
        if (n === undefined) return fail(`${flag}: ${FILTER_PROBLEMS.threshold(raw)}`);
        filters[flag === "--min-messages" ? "minMessages" : "minParticipants"] = n;
        break;
      }
      case "--all":
        if (inline !== undefined) return fail("--all takes no value: it clears every filter.");
        clearFilters = true;
        break;
      case "--mode": {
        const v = takeValue(inline, true).trim().toLowerCase();
        const mode = DELIVERY_MODES.find((m) => m === v);
        if (!mode) return fail(`--mode is one of ${DELIVERY_MODES.join(", ")}, like --mode digest.`);
        delivery.mode = mode;
        break;
      }
      case "--every": {
        const raw = takeValue(inline, true);
        const every = parseEvery(raw);
        if (!every) return fail(`--every is one of ${DIGEST_PERIODS.join(", ")}, like --every 4h.`);
        delivery.every = every;
        break;
      }
      case "--format": {
        const v = takeValue(inline, true).trim().toLowerCase();
        const format = CARD_FORMATS.find((f) => f === v);
        if (!format) return fail(`--format is full or compact, like --format compact.`);
        delivery.format = format;
        break;
      }
      case "--replies": {
        const v = takeValue(inline, true).trim().toLowerCase();
        if (!ON.has(v) && !OFF.has(v)) return fail("--replies is on or off, like --replies on.");
        delivery.replies = ON.has(v);
        break;
      }
      default:
        return fail(`Unknown option "${token}": use ${usage}.`);
    }
  }
  // `--every` alone means digest mode; with another mode named it would silently do nothing.
  if (delivery.every !== undefined) {
    if (delivery.mode === undefined) delivery.mode = "digest";
    else if (delivery.mode !== "digest") {
      return fail(`--every sets the period of digest mode; it does nothing with --mode ${delivery.mode}.`);
    }
  }
  const problem = checkFilters(filters)[0];
  if (problem) return fail(problem.problem);
  return { ok: true, change: { filters, clearFilters, delivery } };
}

/** What is in force after a change: only what it names is replaced (a field given replaces that field). */
export function applyChange(
  current: Pick<Subscription, "filters" | "delivery"> | undefined,
  change: SubscriptionChange,
): { filters: SubscriptionFilters; delivery: Partial<Delivery> } {
  const base = change.clearFilters ? {} : (current?.filters ?? {});
  const merged: SubscriptionFilters = { ...base, ...change.filters };
  // `--unanswered` implies question-led, so `--questions off` alone turns both off.
  if (change.filters.questions === false && change.filters.unanswered === undefined)
    merged.unanswered = false;
  return { filters: normalizeFilters(merged), delivery: { ...current?.delivery, ...change.delivery } };
}

/** Whether a change names nothing (a plain `subscribe <group>`). */
export const isEmptyChange = (c: SubscriptionChange): boolean =>
  !c.clearFilters &&
  !hasFilters(c.filters) &&
  Object.keys(c.delivery).length === 0 &&
  c.filters.questions === undefined &&
  c.filters.unanswered === undefined;

const hours = (every: DigestEvery): string => (every === "1h" ? "hour" : `${every.slice(0, -1)} hours`);
const clock = (h: number) => `${String(h).padStart(2, "0")}:00`;

/**
 * When a period's digests arrive, in the channel's local time: "at 09:00", "at 01:00, 09:00 and
 * 17:00", "at 01:00, 05:00, …, 21:00" (more than three read as a pattern), "on the hour".
 */
export function digestTimes(every: DigestEvery): string {
  if (every === "1h") return "on the hour";
  const times = periodHours(every).map(clock);
  if (times.length > 3) return `at ${times[0]}, ${times[1]}, …, ${times[times.length - 1]}`;
  const last = times.pop();
  return times.length === 0 ? `at ${last}` : `at ${times.join(", ")} and ${last}`;
}

/**
 * "a card per thread" / "daily digest at 09:00 (Europe/Berlin), compact cards" / "digest every
 * 4 hours, at 01:00, 05:00, …, 21:00 (UTC)" / "weekly summary only". Periods align on the channel's
 * zone (docs/using.md): give it whenever it is known, so that the times mean something.
 */
export function describeDelivery(d: Delivery, timeZone?: string): string {
  if (d.mode === "summary") return "weekly summary only";
  const parts: string[] = [];
  if (d.mode === "digest") {
    const zone = timeZone ? ` (${timeZone})` : "";
    parts.push(
      d.every === "24h"
        ? `daily digest ${digestTimes(d.every)}${zone}`
        : `digest every ${hours(d.every)}, ${digestTimes(d.every)}${zone}`,
    );
  } else parts.push("a card per thread");
  // Card settings say nothing in digest or summary mode, which post no cards.
  if (d.mode === "realtime" && d.format === "compact") parts.push("compact cards");
  if (d.mode === "realtime" && d.replies) parts.push("new messages as replies under the card");
  return parts.join(", ");
}

/** What a subscription has in force, in one line: filters, then delivery. Plain text: escape it. */
export function describeSubscription(
  s: Pick<Subscription, "filters" | "delivery">,
  timeZone?: string,
): string {
  return `${describeFilters(s.filters)} · ${describeDelivery(deliveryOf(s), timeZone)}`;
}

/** What a change names, in words, for "understood so far" replies. */
function describeChange(c: SubscriptionChange): string {
  const parts: string[] = [];
  if (c.clearFilters) parts.push("all threads");
  if (hasFilters(c.filters)) parts.push(describeFilters(c.filters));
  const d = c.delivery;
  if (d.mode) parts.push(`mode ${d.mode}`);
  if (d.every) parts.push(`every ${d.every}`);
  if (d.format) parts.push(`format ${d.format}`);
  if (d.replies !== undefined) parts.push(`replies ${d.replies ? "on" : "off"}`);
  return parts.join(" · ");
}
