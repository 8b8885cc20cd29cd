import {
  describeFilters,
  hasFilters,
  matchesFilters,
  matchesKeyword,
  normalizeFilters,
  type FilterSubject,
  type SubscriptionFilters,
} from "./filters.js";
import { formatClockTime, formatQuietWindow, type ClockMinutes, type QuietWindow } from "./local-time.js";

/*
 * A personal watch: a person's standing search over every thread the service enriches. A thread
 * matches when every word of the watch appears (as whole words, case and accents ignored) in
 * its title, summary or keywords, and it passes the filters of `subscribe` (`--keywords a,b`
 * for any of several, exclusions win). Pure; no I/O.
 */

/** How many watches one person may keep: enough for the topics one follows, few enough to read. */
export const MAX_WATCHES_PER_PERSON = 10;
export const MAX_WATCH_WORDS = 10;
export const MAX_WATCH_WORD_LENGTH = 100;

/** What a person asks for (`watch <words> [--group g] [filters] [--daily HH:MM] [--quiet HH:MM-HH:MM]`). */
export interface WatchSpec {
  /** Every one must appear in the title, summary or keywords (a quoted phrase is one word). */
  words: string[];
  /** Only this chat group; absent: every group the service sends webhooks for. */
  group?: { id: string; name: string };
  filters: SubscriptionFilters;
  /** Gather the day's matches into one DM at this local time. */
  daily?: ClockMinutes;
  /** Hold DMs during these local hours and send them gathered after. */
  quiet?: QuietWindow;
}

export interface Watch extends WatchSpec {
  /** Stable within the person's watches (a number as text); the list's order is by creation. */
  id: string;
  userId: string;
  createdAt: string;
}

/** The thread facts a watch looks at: a digest (or a listing item mapped onto it) and its group. */
export type WatchSubject = FilterSubject & { groupId: string };

/** Whether a thread matches a watch: group, every word, then the filters. */
export function matchesWatch(w: Pick<WatchSpec, "words" | "group" | "filters">, d: WatchSubject): boolean {
  if (w.group && w.group.id !== d.groupId) return false;
  if (!w.words.every((word) => matchesKeyword(d, word))) return false;
  return matchesFilters(d, w.filters);
}

/** Whether a spec asks for anything at all (a watch on nothing would DM every thread there is). */
export function isEmptySpec(s: Pick<WatchSpec, "words" | "group" | "filters">): boolean {
  return s.words.length === 0 && !s.group && !hasFilters(s.filters);
}

/** The spec without empty parts, its words in the order typed and without repeats. */
export function normalizeSpec(s: WatchSpec): WatchSpec {
  const words: string[] = [];
  for (const w of s.words.map((x) => x.trim()).filter(Boolean)) {
    if (!words.some((x) => x.toLowerCase() === w.toLowerCase())) words.push(w);
  }
  return {
    words,
    ...(s.group ? { group: { id: s.group.id, name: s.group.name } } : {}),
    filters: normalizeFilters(s.filters),
    ...(s.daily !== undefined ? { daily: s.daily } : {}),
    ...(s.quiet ? { quiet: { from: s.quiet.from, to: s.quiet.to } } : {}),
  };
}

/** Whether two specs ask for the same thing (words compared without case). */
export function sameSpec(a: WatchSpec, b: WatchSpec): boolean {
  const key = (s: WatchSpec) => {
    const n = normalizeSpec(s);
    return JSON.stringify({ ...n, words: n.words.map((w) => w.toLowerCase()) });
  };
  return key(a) === key(b);
}

/** “refund failed” (the words as typed, each quoted phrase kept). Plain text: escape it. */
export const describeWords = (words: readonly string[]): string =>
  words.length === 0 ? "any words" : `“${words.join(" ")}”`;

/**
 * One line for people, e.g. "“refund failed” in Lumen DB Support · sentiment negative · daily
 * at 09:00 · quiet 22:00–07:00". Plain text that echoes what a person typed: escape it.
 */
export function describeWatch(w: WatchSpec): string {
  const parts = [
    `${w.words.length > 0 ? describeWords(w.words) : "threads"} in ${w.group ? w.group.name || w.group.id : "any group"}`,
    ...(hasFilters(w.filters) ? [describeFilters(w.filters)] : []),
    ...(w.daily !== undefined ? [`daily at ${formatClockTime(w.daily)}`] : []),
    ...(w.quiet ? [`quiet ${formatQuietWindow(w.quiet)}`] : []),
  ];
  return parts.join(" · ");
}
