import { isValidCron, isValidTimezone } from "../config.js";

/*
 * Schedules people can type: "monday 09:00 Europe/Berlin", "fri 5pm", "weekdays 8:30",
 * "every day at noon", or a five-field cron as before. Pure: the words in, a cron and a zone
 * out, or what was understood so that the reply can show it.
 */

export interface ScheduleDefaults {
  /** WEEKLY_DEFAULT_CRON: where a day or a time that was left out comes from. */
  cron: string;
  /** DEFAULT_TIMEZONE. */
  timeZone: string;
}

/** What the words were read as, so far; shown back when something was not understood. */
export interface Understood {
  days?: string;
  time?: string;
  timeZone?: string;
  cron?: string;
}

export type ParsedSchedule =
  | { ok: true; cron: string; timeZone: string; understood: Understood }
  | { ok: false; understood: Understood; unread: string[]; problem: string };

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const DAY_WORDS: Record<string, number> = {};
for (const [i, d] of DAY_NAMES.entries()) {
  const lower = d.toLowerCase();
  for (const w of [lower, `${lower}s`, lower.slice(0, 3), lower.slice(0, 3) + "."]) DAY_WORDS[w] = i;
}
Object.assign(DAY_WORDS, { tues: 2, weds: 3, thur: 4, thurs: 4 });
/** Several days in one word: a summary that goes out more than once a week. */
const DAY_SETS: Record<string, { cron: string; text: string }> = {
  daily: { cron: "*", text: "every day" },
  weekdays: { cron: "1-5", text: "weekdays (Monday to Friday)" },
};
/** Words that carry no meaning of their own ("every monday at 9"). */
const FILLERS = new Set(["on", "at", "every", "each", "@", "in", "the"]);

/** A cron field: digits, names and the characters cron uses; never a colon or am/pm. */
const CRON_FIELD = /^(\*|\?|[0-9A-Za-z*,/\-#LW]+)$/;

const pad = (n: number) => String(n).padStart(2, "0");

/** "9", "09:00", "9am", "5:30pm", "17h", "17h30", "noon", "midnight" → minutes after midnight. */
export function readTime(word: string): number | undefined {
  const w = word.toLowerCase();
  if (w === "noon" || w === "midday") return 12 * 60;
  if (w === "midnight") return 0;
  const m = /^(\d{1,2})(?:[:.h](\d{2}))?h?\s*(am|pm|a\.m\.|p\.m\.)?$/.exec(w);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const half = m[3]?.charAt(0);
  if (minute > 59) return undefined;
  if (half) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === "p" ? 12 : 0);
  } else if (hour > 23) return undefined;
  // A bare number with no colon, h or am/pm is an hour only when it is one ("9", "17").
  return hour * 60 + minute;
}

/** The day-of-week, minute and hour of a simple default cron ("0 9 * * 1"); undefined otherwise. */
function defaultParts(cron: string): { minute: number; hour: number; dow: string } | undefined {
  const f = cron.trim().split(/\s+/);
  if (f.length !== 5 || f[2] !== "*" || f[3] !== "*") return undefined;
  const minute = Number(f[0]);
  const hour = Number(f[1]);
  if (!Number.isInteger(minute) || !Number.isInteger(hour)) return undefined;
  return { minute, hour, dow: f[4] ?? "1" };
}

const dayText = (dow: string) => {
  const i = Number(dow);
  if (Number.isInteger(i) && i >= 0 && i <= 7) return `${DAY_NAMES[i % 7] ?? ""}s`;
  return DAY_SETS[dow === "*" ? "daily" : dow === "1-5" ? "weekdays" : ""]?.text ?? `days \`${dow}\``;
};

/**
 * Reads the words after `weekly on`. Each word is a day ("monday", "fri", "weekdays",
 * "daily"), a time ("09:00", "5pm", "noon"), an IANA zone ("Europe/Berlin", "UTC") or a
 * filler ("every", "at"); five cron fields (plus an optional zone) are a cron as before.
 * Whatever is left out comes from the defaults. Never throws.
 */
export function parseSchedule(input: string[], defaults: ScheduleDefaults): ParsedSchedule {
  const words = input.join(" ").trim().split(/\s+/).filter(Boolean);
  const understood: Understood = {};
  let timeZone: string | undefined;

  // A zone is the last word when it names one (Europe/Berlin, UTC, GMT). One that does not is
  // reported after the other words are read, so that the reply says what was understood.
  const last = words.at(-1);
  let badZone: string | undefined;
  if (last !== undefined && (last.includes("/") || /^(utc|gmt|z)$/i.test(last) || isZoneName(last))) {
    if (isValidTimezone(last)) {
      timeZone = /^z$/i.test(last) ? "UTC" : canonicalZone(last);
      understood.timeZone = timeZone;
    } else badZone = last;
    words.pop();
  }
  const zone = timeZone ?? defaults.timeZone;
  const zoneProblem = (u: Understood): ParsedSchedule => ({
    ok: false,
    understood: u,
    unread: [badZone ?? ""],
    problem: `"${badZone ?? ""}" is not a time zone I know (an IANA name such as Europe/Berlin, America/Los_Angeles or UTC)`,
  });

  if (words.length === 0) {
    if (badZone !== undefined) return zoneProblem(understood);
    return {
      ok: true,
      cron: defaults.cron,
      timeZone: zone,
      understood: { ...understood, cron: defaults.cron },
    };
  }

  // Five words that all look like cron fields, minute and hour made of digits or stars: a cron.
  const numeric = (w: string | undefined) => w !== undefined && /^[\d*,/-]+$/.test(w);
  if (
    words.length === 5 &&
    words.every((w) => CRON_FIELD.test(w)) &&
    numeric(words[0]) &&
    numeric(words[1])
  ) {
    const cron = words.join(" ");
    if (isValidCron(cron)) {
      if (badZone !== undefined) return zoneProblem({ ...understood, cron });
      return { ok: true, cron, timeZone: zone, understood: { ...understood, cron } };
    }
    return {
      ok: false,
      understood,
      unread: words,
      problem: `"${cron}" looks like a cron schedule (minute, hour, day of month, month, day of week) but one of its fields is out of range`,
    };
  }

  if (words.some((w) => w.includes("*"))) {
    return {
      ok: false,
      understood,
      unread: words,
      problem: `"${words.join(" ")}" looks like a cron schedule, but a cron has five fields (minute, hour, day of month, month, day of week) and this has ${words.length}`,
    };
  }

  let dow: string | undefined;
  let minutes: number | undefined;
  const unread: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const raw = words[i] ?? "";
    const w = raw.toLowerCase().replace(/,$/, "");
    if (FILLERS.has(w)) continue;
    if (w === "day" && words[i - 1]?.toLowerCase() === "every") {
      dow = "*";
      understood.days = DAY_SETS.daily?.text;
      continue;
    }
    const day = DAY_WORDS[w];
    const set = DAY_SETS[w];
    if ((day !== undefined || set) && dow === undefined) {
      dow = day !== undefined ? String(day) : (set?.cron ?? "*");
      understood.days = day !== undefined ? `${DAY_NAMES[day] ?? ""}s` : set?.text;
      continue;
    }
    // "5 pm": the half of the day as its own word.
    const next = words[i + 1]?.toLowerCase();
    const joined = next && /^(am|pm|a\.m\.|p\.m\.)$/.test(next) ? `${w}${next}` : undefined;
    const t = readTime(joined ?? w);
    if (t !== undefined && minutes === undefined) {
      minutes = t;
      understood.time = `${pad(Math.floor(t / 60))}:${pad(t % 60)}`;
      if (joined) i++;
      continue;
    }
    unread.push(raw);
  }

  if (unread.length > 0) {
    const zoneToo = badZone !== undefined ? `; "${badZone}" is not a time zone I know either` : "";
    return {
      ok: false,
      understood,
      unread: badZone !== undefined ? [...unread, badZone] : unread,
      problem: `I could not read ${unread.map((u) => `"${u}"`).join(", ")}${zoneToo}`,
    };
  }
  if (badZone !== undefined) return zoneProblem(understood);
  const base = defaultParts(defaults.cron) ?? { minute: 0, hour: 9, dow: "1" };
  const d = dow ?? base.dow;
  const m = minutes ?? base.hour * 60 + base.minute;
  const cron = `${m % 60} ${Math.floor(m / 60)} * * ${d}`;
  understood.days ??= dayText(d);
  understood.time ??= `${pad(Math.floor(m / 60))}:${pad(m % 60)}`;
  return { ok: true, cron, timeZone: zone, understood: { ...understood, cron } };
}

/** A single-word zone such as "Japan" or "Singapore" counts only when Intl knows it. */
function isZoneName(word: string): boolean {
  if (!/^[A-Z][A-Za-z_]+$/.test(word) || word.length < 4) return false;
  if (DAY_WORDS[word.toLowerCase()] !== undefined || DAY_SETS[word.toLowerCase()]) return false;
  return isValidTimezone(word);
}

/** The zone's own spelling ("europe/berlin" → "Europe/Berlin"), so the reply and BullMQ agree. */
function canonicalZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return tz;
  }
}

/** "Mondays · 09:00 · Europe/Berlin": what was understood, for a reply. */
export function describeUnderstood(u: Understood): string {
  const parts = [
    u.days && `day: ${u.days}`,
    u.time && `time: ${u.time}`,
    !u.days && !u.time && u.cron && `cron: ${u.cron}`,
    u.timeZone && `time zone: ${u.timeZone}`,
  ].filter((p): p is string => typeof p === "string");
  return parts.length > 0 ? parts.join(" · ") : "nothing yet";
}
