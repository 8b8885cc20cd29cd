/*
 * Wall-clock times in a person's own time zone: parsing "22:00", whether an instant falls in a
 * quiet window (which may run across midnight), when that window ends, and the next time a
 * daily DM is due. Days are calendar days of the zone, so a window or a daily time keeps its
 * wall-clock time across a daylight-saving change; a time a change skips (02:30 on the night
 * clocks go forward) is taken as the first instant after the gap. Pure; no I/O.
 */

import { dayOf } from "./weekly-window.js";

const MINUTE_MS = 60_000;
const DAY_MINUTES = 24 * 60;

/** Minutes after local midnight, 0 to 1439. */
export type ClockMinutes = number;

/** Quiet hours: from `from` (included) to `to` (excluded), across midnight when `to` < `from`. */
export interface QuietWindow {
  from: ClockMinutes;
  to: ClockMinutes;
}

/**
 * "22:00", "7:30", "07h30", "9am", "5:30pm" → minutes after midnight; undefined for anything
 * else (a bare "9" is not read as a time: it could be an hour or a count).
 */
export function parseClockTime(raw: string): ClockMinutes | undefined {
  const m = /^(\d{1,2})(?:[:h.](\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?$/i.exec(raw.trim());
  if (!m || (m[2] === undefined && m[3] === undefined)) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const half = m[3]?.charAt(0).toLowerCase();
  if (minute > 59) return undefined;
  if (half) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === "p" ? 12 : 0);
  } else if (hour > 23) return undefined;
  return hour * 60 + minute;
}

/** 1320 → "22:00". */
export function formatClockTime(minutes: ClockMinutes): string {
  const h = Math.floor(minutes / 60);
  return `${String(h).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

/** "22:00-07:00" (also with an en dash, "to", or spaces) → a window; undefined when unreadable or empty. */
export function parseQuietWindow(raw: string): QuietWindow | undefined {
  const parts = raw
    .trim()
    .split(/\s*(?:-|–|—|\bto\b|\buntil\b)\s*/i)
    .filter((p) => p !== "");
  if (parts.length !== 2) return undefined;
  const from = parseClockTime(parts[0] ?? "");
  const to = parseClockTime(parts[1] ?? "");
  if (from === undefined || to === undefined || from === to) return undefined;
  return { from, to };
}

/** "22:00–07:00". */
export const formatQuietWindow = (q: QuietWindow): string =>
  `${formatClockTime(q.from)}–${formatClockTime(q.to)}`;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hour: "numeric",
      minute: "numeric",
      hourCycle: "h23",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock time of an instant in a zone, in minutes after local midnight. */
export function localMinutesAt(ms: number, timeZone: string): ClockMinutes {
  let h = 0;
  let min = 0;
  for (const p of formatter(timeZone).formatToParts(ms)) {
    if (p.type === "hour") h = Number(p.value) % 24;
    if (p.type === "minute") min = Number(p.value);
  }
  return h * 60 + min;
}

/** Whether local time `t` lies in the window (from included, to excluded). */
export function clockInWindow(t: ClockMinutes, q: QuietWindow): boolean {
  return q.from < q.to ? t >= q.from && t < q.to : t >= q.from || t < q.to;
}

/** Whether the instant falls inside the quiet window of the person's zone. */
export function isInQuietWindow(ms: number, q: QuietWindow, timeZone: string): boolean {
  return clockInWindow(localMinutesAt(ms, timeZone), q);
}

type YMD = { y: number; m: number; d: number };
const addDays = (v: YMD, n: number): YMD => {
  const t = new Date(Date.UTC(v.y, v.m - 1, v.d + n));
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
};

/**
 * The instant a zone's clock shows `minutes` on a calendar day. Of two instants (the hour
 * repeated when clocks go back) the earlier; when clocks go forward over it, the first instant
 * after the gap, as the clock would have read had it not jumped (02:30 → 03:30).
 */
export function instantAtLocal(day: YMD, minutes: ClockMinutes, timeZone: string): number {
  const wall = Date.UTC(day.y, day.m - 1, day.d, Math.floor(minutes / 60), minutes % 60);
  // The offset at an instant: what the wall clock says minus UTC, at minute precision.
  const offsetAt = (t: number) => {
    const local = localMinutesAt(t, timeZone);
    const at = dayOf(t, timeZone);
    return Date.UTC(at.y, at.m - 1, at.d, Math.floor(local / 60), local % 60) - (t - (t % MINUTE_MS));
  };
  const shows = (t: number) => {
    const at = dayOf(t, timeZone);
    return at.y === day.y && at.m === day.m && at.d === day.d && localMinutesAt(t, timeZone) === minutes;
  };
  const candidates = [wall - offsetAt(wall - 12 * 3_600_000), wall - offsetAt(wall + 12 * 3_600_000)];
  const hits = candidates.filter(shows).sort((a, b) => a - b);
  if (hits[0] !== undefined) return hits[0];
  // Skipped by a change: the offset before it carries the wall time past the gap.
  return candidates[0] ?? wall;
}

/**
 * The first instant at or after `ms` when the zone's clock reaches `minutes` (today's, or the
 * next day's when today's is past).
 */
function nextLocal(ms: number, minutes: ClockMinutes, timeZone: string, strictlyAfter: boolean): number {
  const today = dayOf(ms, timeZone);
  for (let i = 0; i < 3; i++) {
    const t = instantAtLocal(addDays(today, i), minutes, timeZone);
    if (strictlyAfter ? t > ms : t >= ms) return t;
  }
  // Unreachable for real zones (a day has a `minutes` within 48 hours); a day later at worst.
  return ms + DAY_MINUTES * MINUTE_MS;
}

/** When a quiet window that `ms` falls in ends: the next time the clock reaches `to`. */
export function quietWindowEnd(ms: number, q: QuietWindow, timeZone: string): number {
  return nextLocal(ms, q.to, timeZone, true);
}

/** The next daily DM after `ms`: the first instant strictly after it when the clock shows `minutes`. */
export function nextDailyAt(ms: number, minutes: ClockMinutes, timeZone: string): number {
  return nextLocal(ms, minutes, timeZone, true);
}

/** The calendar day after the one `ms` falls on, at `minutes` ("tomorrow at 9:00" in the zone). */
export function tomorrowAt(ms: number, minutes: ClockMinutes, timeZone: string): number {
  return instantAtLocal(addDays(dayOf(ms, timeZone), 1), minutes, timeZone);
}

/** Whether `name` is a time zone this runtime knows (an IANA name such as Europe/Berlin). */
export function isKnownTimeZone(name: string): boolean {
  try {
    formatter(name);
    return true;
  } catch {
    return false;
  }
}
