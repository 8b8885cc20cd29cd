import * as chrono from "chrono-node";
import { addDays, dayOf, offsetAt, startOfDay, type YMD } from "../domain/weekly-window.js";

/*
 * The period a question is about, read from its words in the asker's own time zone. chrono-node
 * finds the time expressions and the dates they name; the rules below decide which period each
 * one means, and refuse, with an example, the ones that name no period we can count (a moment,
 * the future, "this morning"). Pure: the clock and the zone are given.
 */

export interface TimeWindow {
  /** First instant, inclusive (ms). */
  from: number;
  /** Last instant, inclusive (ms). */
  to: number;
}

export interface AskRange extends TimeWindow {
  /** The same length just before, for "the change against the period before". */
  previous: TimeWindow;
  /** How the answer names it: "Nov 20–26", "today (Nov 26)", "October". */
  label: string;
  previousLabel: string;
  /** The words that set it ("since Monday"), read again for a follow-up; "" for the default. */
  words: string;
}

export type RangeReading =
  | { kind: "none" }
  | { kind: "range"; range: AskRange; spans: Array<[number, number]> }
  | { kind: "refused"; reply: string };

export interface Clock {
  now: number;
  timeZone: string;
}

/** Used when a question names no period: "this week", the last 7 days up to now. */
export const DEFAULT_RANGE_DAYS = 7;

const DAY_MS = 86_400_000;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
export const RANGE_EXAMPLES = "“today”, “this week”, “last 30 days”, “since Monday” or “last month”";

const ymdKey = (v: YMD) => v.y * 10_000 + v.m * 100 + v.d;
const sameDay = (a: YMD, b: YMD) => ymdKey(a) === ymdKey(b);
const daysBetween = (a: YMD, b: YMD) =>
  Math.round((Date.UTC(b.y, b.m - 1, b.d) - Date.UTC(a.y, a.m - 1, a.d)) / DAY_MS);
const lastDayOfMonth = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const monthBefore = (y: number, m: number) => (m === 1 ? { y: y - 1, m: 12 } : { y, m: m - 1 });
const monthAfter = (y: number, m: number) => (m === 12 ? { y: y + 1, m: 1 } : { y, m: m + 1 });

// --- Labels ------------------------------------------------------------------------------------

/** "Nov 20–26", "Oct 28 – Nov 26", "Dec 29, 2024 – Jan 4, 2025", "Nov 3": first and last day. */
export function daysLabel(first: YMD, last: YMD, currentYear: number): string {
  const md = (v: YMD) => `${MONTHS[v.m - 1] ?? ""} ${v.d}`;
  const withYear = first.y !== last.y || last.y !== currentYear;
  if (sameDay(first, last)) return withYear ? `${md(first)}, ${first.y}` : md(first);
  if (first.y !== last.y) return `${md(first)}, ${first.y} – ${md(last)}, ${last.y}`;
  const year = withYear ? `, ${last.y}` : "";
  if (first.m === last.m) return `${md(first)}–${last.d}${year}`;
  return `${md(first)} – ${md(last)}${year}`;
}

function windowLabel(w: TimeWindow, c: Clock): string {
  const today = dayOf(c.now, c.timeZone);
  return daysLabel(dayOf(w.from, c.timeZone), dayOf(w.to, c.timeZone), today.y);
}

const hhmm = (ms: number, tz: string) => {
  const start = startOfDay(dayOf(ms, tz), tz);
  const minutes = Math.floor((ms - start) / 60_000);
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
};

// --- Periods -----------------------------------------------------------------------------------

/** `first`..`last` whole days (the last one up to now when it is today); the period before: as many days. */
function daysPeriod(first: YMD, last: YMD, c: Clock, words: string): AskRange {
  const today = dayOf(c.now, c.timeZone);
  const n = daysBetween(first, last) + 1;
  const from = startOfDay(first, c.timeZone);
  const open = sameDay(last, today);
  const to = open ? c.now : startOfDay(addDays(last, 1), c.timeZone) - 1;
  const prevFrom = startOfDay(addDays(first, -n), c.timeZone);
  // Still running: compare with the days before up to the same time of day.
  const prevTo = open
    ? startOfDay(addDays(last, -n), c.timeZone) + (c.now - startOfDay(today, c.timeZone))
    : from - 1;
  const previous = { from: prevFrom, to: Math.min(prevTo, from - 1) };
  const label = daysLabel(first, last, today.y);
  const previousLabel = daysLabel(addDays(first, -n), addDays(last, -n), today.y);
  if (n === 1 && open) {
    return {
      from,
      to,
      previous,
      label: `today (${label})`,
      previousLabel: `yesterday (${previousLabel})`,
      words,
    };
  }
  if (n === 1 && sameDay(first, addDays(today, -1))) {
    return { from, to, previous, label: `yesterday (${label})`, previousLabel, words };
  }
  return { from, to, previous, label, previousLabel, words };
}

/** The last `n` calendar days, today included: "this week" is 7. */
function lastDays(n: number, c: Clock, words: string): AskRange {
  const today = dayOf(c.now, c.timeZone);
  return daysPeriod(addDays(today, -(n - 1)), today, c, words);
}

/** A calendar month (up to now when it is this month); the period before: the month before. */
function monthPeriod(y: number, m: number, c: Clock, words: string): AskRange {
  const today = dayOf(c.now, c.timeZone);
  const open = today.y === y && today.m === m;
  const from = startOfDay({ y, m, d: 1 }, c.timeZone);
  const next = monthAfter(y, m);
  const to = open ? c.now : startOfDay({ ...next, d: 1 }, c.timeZone) - 1;
  const prev = monthBefore(y, m);
  const prevFrom = startOfDay({ ...prev, d: 1 }, c.timeZone);
  const prevTo = open
    ? Math.min(
        startOfDay({ ...prev, d: Math.min(today.d, lastDayOfMonth(prev.y, prev.m)) }, c.timeZone) +
          (c.now - startOfDay(today, c.timeZone)),
        from - 1,
      )
    : from - 1;
  const previous = { from: prevFrom, to: prevTo };
  const name = (yy: number, mm: number) => `${MONTH_NAMES[mm - 1] ?? ""}${yy === today.y ? "" : ` ${yy}`}`;
  if (open) {
    return {
      from,
      to,
      previous,
      label: windowLabel({ from, to }, c),
      previousLabel: windowLabel(previous, c),
      words,
    };
  }
  return { from, to, previous, label: name(y, m), previousLabel: name(prev.y, prev.m), words };
}

/** A calendar year (up to now when it is this year); the period before: the year before. */
function yearPeriod(y: number, c: Clock, words: string): AskRange {
  const today = dayOf(c.now, c.timeZone);
  const open = today.y === y;
  const from = startOfDay({ y, m: 1, d: 1 }, c.timeZone);
  const to = open ? c.now : startOfDay({ y: y + 1, m: 1, d: 1 }, c.timeZone) - 1;
  const prevFrom = startOfDay({ y: y - 1, m: 1, d: 1 }, c.timeZone);
  const prevTo = open
    ? Math.min(
        startOfDay(
          { y: y - 1, m: today.m, d: Math.min(today.d, lastDayOfMonth(y - 1, today.m)) },
          c.timeZone,
        ) +
          (c.now - startOfDay(today, c.timeZone)),
        from - 1,
      )
    : from - 1;
  const previous = { from: prevFrom, to: prevTo };
  if (open) {
    return {
      from,
      to,
      previous,
      label: windowLabel({ from, to }, c),
      previousLabel: windowLabel(previous, c),
      words,
    };
  }
  return { from, to, previous, label: String(y), previousLabel: String(y - 1), words };
}

/** From an instant up to now; the period before: as long, just before. */
function sincePeriod(from: number, c: Clock, words: string, label?: string): AskRange {
  const span = c.now - from;
  const previous = { from: from - span - 1, to: from - 1 };
  const today = dayOf(c.now, c.timeZone);
  const day = dayOf(from, c.timeZone);
  const atMidnight = startOfDay(day, c.timeZone) === from;
  const shown =
    label ??
    (atMidnight
      ? windowLabel({ from, to: c.now }, c)
      : sameDay(day, today)
        ? `today since ${hhmm(from, c.timeZone)} (${daysLabel(day, day, today.y)})`
        : `${daysLabel(day, day, today.y)} ${hhmm(from, c.timeZone)} – now`);
  return { from, to: c.now, previous, label: shown, previousLabel: windowLabel(previous, c), words };
}

/** The default period: the last 7 days up to now ("this week"). */
export function defaultRange(c: Clock): AskRange {
  return lastDays(DEFAULT_RANGE_DAYS, c, "");
}

// --- Reading words ------------------------------------------------------------------------------

const refuse = (reply: string): RangeReading => ({ kind: "refused", reply });

const SINCE_BEFORE = /\b(?:since|from|after|starting(?:\s+(?:on|from))?)\s+(?:the\s+)?$/i;
const UNTIL_BEFORE = /\b(?:before|until|till|up\s+to)\s+(?:the\s+)?$/i;
/** Words that, just before a bare weekday, make it a day ("on Monday"); "Saturday Rides" stays a name. */
const WEEKDAY_LEAD = /\b(?:since|from|after|on|starting|before|until|till|last|this|past)\s+$/i;
const MONTH_LEAD = /\b(?:since|from|after|in|during|for|of|starting|before|until|till|last|this|past)\s+$/i;
/** What goes with the expression when it is taken out of the question ("in the", "over the"). */
const LEAD_IN =
  /(?:\b(?:since|from|after|starting(?:\s+(?:on|from))?|in|on|during|over|for|within|between|throughout)\s+)?(?:the\s+)?$/i;

interface Found {
  result: chrono.ParsedResult;
  before: string;
  start: number;
  end: number;
}

function accept(r: chrono.ParsedResult, text: string): Found | undefined {
  const t = r.text.toLowerCase();
  const before = text.slice(0, r.index);
  // "now" names no period ("issues now"): the words stay in the question.
  if (/^(?:right\s+)?now$/.test(t)) return undefined;
  const s = r.start;
  const weekdayOnly = s.isCertain("weekday") && !s.isCertain("day") && !s.isCertain("month");
  if (weekdayOnly && !/\b(?:last|this|next|past)\b/.test(t) && !WEEKDAY_LEAD.test(before)) return undefined;
  const monthOnly = s.isCertain("month") && !s.isCertain("day") && !s.isCertain("year") && !/\s/.test(t);
  if (monthOnly && !MONTH_LEAD.test(before)) return undefined;
  const lead = LEAD_IN.exec(before)?.[0] ?? "";
  return { result: r, before, start: r.index - lead.length, end: r.index + r.text.length };
}

const ymdOf = (r: chrono.ParsedComponents): YMD => ({
  y: r.get("year") ?? 1970,
  m: r.get("month") ?? 1,
  d: r.get("day") ?? 1,
});

function phrase(text: string, f: Found): string {
  return text.slice(f.start, f.end).trim();
}

/** The period one expression names, or why it names none we can count. */
function periodOf(f: Found, text: string, c: Clock): AskRange | string {
  const r = f.result;
  const t = r.text.toLowerCase().replace(/\s+/g, " ").trim();
  const words = phrase(text, f);
  const today = dayOf(c.now, c.timeZone);
  const quoted = `“${r.text}”`;
  if (/\bago\b/.test(t)) {
    return `${quoted} is a moment, not a period. Ask for one, e.g. “last 2 weeks” or “since Monday”.`;
  }
  if (UNTIL_BEFORE.test(f.before)) {
    return `I count periods that run up to now or whole days, not “before” or “until” a date. Try ${RANGE_EXAMPLES}.`;
  }
  if (/\b(?:morning|afternoon|evening|night|tonight|noon|midnight|quarter|weekend)\b/.test(t)) {
    return `I cannot count a period from ${quoted}. Try ${RANGE_EXAMPLES}.`;
  }
  if (/^(?:this|current|last|past|previous) week$/.test(t)) return lastDays(7, c, words);
  if (/^(?:this|current) month$/.test(t)) return monthPeriod(today.y, today.m, c, words);
  if (/^(?:last|previous) month$/.test(t)) {
    const p = monthBefore(today.y, today.m);
    return monthPeriod(p.y, p.m, c, words);
  }
  if (/^past month$/.test(t)) return lastDays(30, c, words);
  if (/^(?:this|current) year$/.test(t)) return yearPeriod(today.y, c, words);
  if (/^(?:last|previous) year$/.test(t)) return yearPeriod(today.y - 1, c, words);
  if (/^past year$/.test(t)) return lastDays(365, c, words);
  if (t === "today") return lastDays(1, c, words);
  if (t === "yesterday") {
    const y = addDays(today, -1);
    return daysPeriod(y, y, c, words);
  }
  const lastUnits =
    /^(?:last|past|previous|the last|the past)\s+.*\b(hours?|days?|weeks?|months?|years?)$/.exec(t);
  const startMs = r.start.date().getTime();
  if (lastUnits) {
    if (lastUnits[1]?.startsWith("hour"))
      return sincePeriod(
        startMs,
        c,
        words,
        `the ${t.replace(/^(?:last|past|previous|the last|the past)\s+/, "last ")}`,
      );
    // "last 30 days": the 30 calendar days up to now, today included.
    const n = Math.max(1, daysBetween(dayOf(startMs, c.timeZone), today));
    return lastDays(n, c, words);
  }
  const since = SINCE_BEFORE.test(f.before);
  const monthOnly = r.start.isCertain("month") && !r.start.isCertain("day") && !r.start.isCertain("weekday");
  if (monthOnly) {
    let { y } = ymdOf(r.start);
    const m = r.start.get("month") ?? 1;
    // "in March" in November means the March that was, not the next one.
    if (!r.start.isCertain("year")) y = m > today.m ? today.y - 1 : today.y;
    if (y > today.y || (y === today.y && m > today.m)) {
      return `${quoted} is in the future: I can only count what was already said. Try ${RANGE_EXAMPLES}.`;
    }
    if (since) return sincePeriod(startOfDay({ y, m, d: 1 }, c.timeZone), c, words);
    return monthPeriod(y, m, c, words);
  }
  if (startMs > c.now + 60_000) {
    return `${quoted} is in the future: I can only count what was already said. Try ${RANGE_EXAMPLES}.`;
  }
  if (r.end) {
    const first = ymdOf(r.start);
    const last = ymdOf(r.end);
    if (r.end.date().getTime() > c.now + DAY_MS) {
      return `${quoted} ends in the future: I can only count what was already said. Try ${RANGE_EXAMPLES}.`;
    }
    if (ymdKey(last) < ymdKey(first)) return `${quoted} ends before it starts. Try “from Nov 1 to Nov 10”.`;
    return daysPeriod(first, ymdKey(last) > ymdKey(today) ? today : last, c, words);
  }
  if (r.start.isCertain("hour")) {
    if (since) return sincePeriod(startMs, c, words);
    return `${quoted} is a moment, not a period. Try “since ${r.text}” or ${RANGE_EXAMPLES}.`;
  }
  if (r.start.isCertain("day") || r.start.isCertain("weekday")) {
    const day = ymdOf(r.start);
    if (since) return sincePeriod(startOfDay(day, c.timeZone), c, words);
    return daysPeriod(day, day, c, words);
  }
  return `I cannot count a period from ${quoted}. Try ${RANGE_EXAMPLES}.`;
}

/**
 * The period a question names, with the character spans of its words (to take them out of the
 * question), or a reply saying why it names none we can count. Several expressions are one
 * period only as "between A and B" / "from A to B".
 */
export function readTimeRange(text: string, c: Clock): RangeReading {
  const offsetMinutes = Math.round(offsetAt(c.now, c.timeZone) / 60_000);
  const parsed = chrono.parse(text, { instant: new Date(c.now), timezone: offsetMinutes });
  const found = parsed.map((r) => accept(r, text)).filter((f): f is Found => f !== undefined);
  if (found.length === 0) return { kind: "none" };
  if (found.length === 2) {
    const [a, b] = found as [Found, Found];
    const between = text.slice(a.end, b.result.index);
    if (
      /^\s*(?:and|to|until|till|through|-|–)\s*$/i.test(between) &&
      /\b(?:between|from)\s+(?:the\s+)?$/i.test(a.before)
    ) {
      const first = ymdOf(a.result.start);
      const last = ymdOf(b.result.start);
      const today = dayOf(c.now, c.timeZone);
      if (b.result.start.date().getTime() > c.now + DAY_MS) {
        return refuse(
          `“${b.result.text}” is in the future: I can only count what was already said. Try ${RANGE_EXAMPLES}.`,
        );
      }
      if (ymdKey(last) < ymdKey(first))
        return refuse(`That period ends before it starts. Try “between Nov 1 and Nov 10”.`);
      const words = text.slice(a.start, b.end).trim();
      const range = daysPeriod(first, ymdKey(last) > ymdKey(today) ? today : last, c, words);
      return { kind: "range", range, spans: [[a.start, b.end]] };
    }
  }
  if (found.length > 1) {
    const names = found.map((f) => `“${f.result.text}”`).join(" and ");
    return refuse(`That names more than one period (${names}). Ask about one, e.g. ${RANGE_EXAMPLES}.`);
  }
  const [f] = found as [Found];
  const period = periodOf(f, text, c);
  if (typeof period === "string") return refuse(period);
  return { kind: "range", range: period, spans: [[f.start, f.end]] };
}

/** A follow-up's period: the earlier question's words read again now; the default when none. */
export function rangeOfWords(words: string, c: Clock): AskRange {
  if (!words.trim()) return defaultRange(c);
  const r = readTimeRange(words, c);
  return r.kind === "range" ? r.range : defaultRange(c);
}
