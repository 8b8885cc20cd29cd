import { questionStatusLabel, sentimentLabel } from "./sentiment.js";
import { byCodeUnit } from "./without-icu.js";

/** What a channel asked to be alerted about for one chat group (`alerts <group> ...`). */
export interface AlertSettings {
  groupId: string;
  groupName: string;
  /** Hours after its first message a question-led thread still unanswered is announced; absent: off. */
  unansweredAfterHours?: number | undefined;
  negativeSpike: boolean;
  volumeSpike: boolean;
  setBy: string;
  /** ISO time; questions that were already overdue then are not announced (no flood on set-up). */
  setAt: string;
}

/** The numbers of docs/using.md's alert rules, in one place. */
export const ALERT_RULES = {
  /** Below this much history the group's base is still being learned: no spike alerts. */
  minHistoryDays: 7,
  baseDays: 28,
  /** Negative spike: share of the last 24 h at least this over the base share... */
  negativePoints: 0.15,
  /** ...and at least this many negative threads in the last 24 h. */
  negativeMinThreads: 5,
  /** Volume spike: the last hour at least this many times the usual hourly threads... */
  volumeFactor: 3,
  /** ...and at least this many threads. */
  volumeMinThreads: 5,
  /** How long a fired spike stays silent after its condition was last seen (one alert per window). */
  negativeWindowMs: 24 * 3_600_000,
  volumeWindowMs: 3_600_000,
  /** An unanswered question is announced once; its key outlives the listing's 30 days. */
  unansweredWindowMs: 35 * 86_400_000,
  maxUnansweredHours: 24 * 14,
} as const;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The fields of a listed thread the rules read. */
export interface HistoryThread {
  id: string;
  title: string;
  firstMessageDate?: string | undefined;
  sentiment?: string | undefined;
  isQuestionLed?: boolean | undefined;
  questionResponseStatus?: string | undefined;
}

/**
 * A group's recent threads (the listing's last 30 days) and since when the data goes back:
 * the oldest thread's first message, or undefined when the listing was cut short (a busy
 * group: its history is long enough).
 */
export interface GroupHistory {
  threads: readonly HistoryThread[];
  historyStartMs: number | undefined;
  truncated: boolean;
}

export type AlertKind = "unanswered" | "negative" | "volume";

export interface FiredAlert {
  kind: AlertKind;
  /** Names the condition and its window: the SET NX key's tail. */
  condition: string;
  /** How long the condition stays silent once fired. */
  windowMs: number;
  threads: HistoryThread[];
  /** What the message says about the numbers. */
  facts: AlertFacts;
}

export type AlertFacts =
  | { kind: "unanswered"; hours: number }
  | {
      kind: "negative";
      negative: number;
      known: number;
      share: number;
      baseShare: number;
      baseKnown: number;
      /** Whole days the base share was taken over (28, or less of a younger history). */
      baseDays: number;
    }
  | { kind: "volume"; lastHour: number; usualPerHour: number; baseDays: number };

/** Why a spike rule did not fire: tests and logs say which guard held it back. */
export type SpikeCheck =
  { fires: true; alert: FiredAlert } | { fires: false; reason: "learning" | "quiet" | "normal" };

const firstMs = (t: HistoryThread): number | undefined => {
  const ms = t.firstMessageDate ? Date.parse(t.firstMessageDate) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms;
};
const within = (t: HistoryThread, fromMs: number, toMs: number) => {
  const ms = firstMs(t);
  return ms !== undefined && ms > fromMs && ms <= toMs;
};

/** Days of history behind a group's base; a cut-short listing counts as a full base. */
export function historyDays(h: GroupHistory, nowMs: number): number {
  if (h.truncated) return ALERT_RULES.baseDays;
  return h.historyStartMs === undefined ? 0 : Math.max(0, (nowMs - h.historyStartMs) / DAY);
}

/** The oldest first message of a listing: where its history starts. */
export function historyStart(threads: readonly HistoryThread[]): number | undefined {
  let min: number | undefined;
  for (const t of threads) {
    const ms = firstMs(t);
    if (ms !== undefined && (min === undefined || ms < min)) min = ms;
  }
  return min;
}

/**
 * Negative spike: among the threads of the last 24 h with a known sentiment, the negative
 * share is at least 15 points over the share of the 28 days before, with at least 5 negative
 * threads. Not while the base is being learned (under 7 days of history).
 */
export function detectNegativeSpike(settings: AlertSettings, h: GroupHistory, nowMs: number): SpikeCheck {
  const days = historyDays(h, nowMs);
  if (days < ALERT_RULES.minHistoryDays) return { fires: false, reason: "learning" };
  const known = (t: HistoryThread) => sentimentLabel(t.sentiment).tone !== "unknown";
  const negative = (t: HistoryThread) => sentimentLabel(t.sentiment).tone === "negative";
  const recentFrom = nowMs - DAY;
  const recent = h.threads.filter((t) => within(t, recentFrom, nowMs) && known(t));
  const base = h.threads.filter(
    (t) => within(t, recentFrom - ALERT_RULES.baseDays * DAY, recentFrom) && known(t),
  );
  const recentNegative = recent.filter(negative);
  if (recentNegative.length < ALERT_RULES.negativeMinThreads) return { fires: false, reason: "quiet" };
  const share = recentNegative.length / recent.length;
  const baseShare = base.length === 0 ? 0 : base.filter(negative).length / base.length;
  // A hair of tolerance: 0.35 - 0.2 is 0.1499999... in floating point.
  if (share - baseShare < ALERT_RULES.negativePoints - 1e-9) return { fires: false, reason: "normal" };
  return {
    fires: true,
    alert: {
      kind: "negative",
      condition: `negative:${settings.groupId}`,
      windowMs: ALERT_RULES.negativeWindowMs,
      threads: recentNegative.sort(byNewest),
      facts: {
        kind: "negative",
        negative: recentNegative.length,
        known: recent.length,
        share,
        baseShare,
        baseKnown: base.length,
        // The history before the last 24 hours, at most the base's 28 days (a listing cut short
        // by the page cap is a long history).
        baseDays: h.truncated
          ? ALERT_RULES.baseDays
          : Math.max(1, Math.min(ALERT_RULES.baseDays, Math.round(days - 1))),
      },
    },
  };
}

/**
 * Volume spike: the last hour has at least 5 new threads and at least 3 times the group's
 * usual hourly threads (over the 28 days before, or the history there is). Not while the base
 * is being learned.
 */
export function detectVolumeSpike(settings: AlertSettings, h: GroupHistory, nowMs: number): SpikeCheck {
  const days = historyDays(h, nowMs);
  if (days < ALERT_RULES.minHistoryDays) return { fires: false, reason: "learning" };
  const hourFrom = nowMs - HOUR;
  const lastHour = h.threads.filter((t) => within(t, hourFrom, nowMs));
  if (lastHour.length < ALERT_RULES.volumeMinThreads) return { fires: false, reason: "quiet" };
  const baseHours = Math.min(ALERT_RULES.baseDays * 24, days * 24 - 1);
  const base = h.threads.filter((t) => within(t, hourFrom - baseHours * HOUR, hourFrom)).length;
  const usualPerHour = base / baseHours;
  if (lastHour.length < ALERT_RULES.volumeFactor * usualPerHour) return { fires: false, reason: "normal" };
  return {
    fires: true,
    alert: {
      kind: "volume",
      condition: `volume:${settings.groupId}`,
      windowMs: ALERT_RULES.volumeWindowMs,
      threads: [...lastHour].sort(byNewest),
      facts: {
        kind: "volume",
        lastHour: lastHour.length,
        usualPerHour,
        baseDays: Math.max(1, Math.round(baseHours / 24)),
      },
    },
  };
}

/** Still waiting for an answer, as far as the service says (absent status: not known, no alert). */
export function isAwaitingAnswer(t: HistoryThread): boolean {
  if (t.isQuestionLed !== true) return false;
  const s = questionStatusLabel(t.questionResponseStatus).status;
  return s === "unanswered" || s === "pending";
}

/**
 * Unanswered questions: question-led threads still awaiting an answer N hours after their
 * first message, whose N hours ran out after the alert was set up (no flood of old questions).
 * One alert per run lists them all; each thread is announced once (its own condition).
 */
export function detectUnanswered(settings: AlertSettings, h: GroupHistory, nowMs: number): FiredAlert[] {
  const hours = settings.unansweredAfterHours;
  if (hours === undefined) return [];
  const setAtMs = Date.parse(settings.setAt);
  const due = h.threads.filter((t) => {
    const first = firstMs(t);
    if (first === undefined || !isAwaitingAnswer(t)) return false;
    const dueAt = first + hours * HOUR;
    return dueAt <= nowMs && (Number.isNaN(setAtMs) || dueAt >= setAtMs);
  });
  return due.sort(byNewest).map((t) => ({
    kind: "unanswered" as const,
    condition: `unanswered:${settings.groupId}:${t.id}`,
    windowMs: ALERT_RULES.unansweredWindowMs,
    threads: [t],
    facts: { kind: "unanswered" as const, hours },
  }));
}

function byNewest(a: HistoryThread, b: HistoryThread): number {
  return (firstMs(b) ?? 0) - (firstMs(a) ?? 0) || byCodeUnit(a.id, b.id);
}
