import type { Tone } from "./sentiment.js";
import { TONES, type ToneCounts } from "./weekly-stats.js";

export type RatedTone = Exclude<Tone, "unknown">;
export const RATED_TONES = TONES.filter((t): t is RatedTone => t !== "unknown");

export interface ToneChange {
  tone: RatedTone;
  count: number;
  /** Share of the week's rated threads, 0..1 (0 when none was rated). */
  share: number;
  previousCount: number | undefined;
  previousShare: number | undefined;
  /** share − previousShare in percentage points, rounded to one decimal; undefined without a base. */
  deltaPoints: number | undefined;
}

export interface SentimentChange {
  /** Threads with a sentiment the app understood. */
  rated: number;
  /** Threads without one yet, or with a value it did not recognise. */
  unrated: number;
  previousRated: number | undefined;
  tones: ToneChange[];
}

const ratedOf = (c: ToneCounts) => RATED_TONES.reduce((n, t) => n + c[t], 0);
const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The sentiment distribution of a week and its change against the week before. Shares are
 * of rated threads only: threads still waiting for enrichment would otherwise shrink every
 * share alike. A previous week with no rated thread gives no base (deltas undefined), as
 * does an unknown previous week.
 */
export function sentimentChange(current: ToneCounts, previous: ToneCounts | undefined): SentimentChange {
  const rated = ratedOf(current);
  const previousRated = previous ? ratedOf(previous) : undefined;
  const base = previous && previousRated ? previousRated : undefined;
  return {
    rated,
    unrated: current.unknown,
    previousRated,
    tones: RATED_TONES.map((tone) => {
      const share = rated > 0 ? current[tone] / rated : 0;
      const previousShare = previous && base ? previous[tone] / base : undefined;
      return {
        tone,
        count: current[tone],
        share,
        previousCount: previous ? previous[tone] : undefined,
        previousShare,
        deltaPoints: previousShare === undefined ? undefined : round1((share - previousShare) * 100),
      };
    }),
  };
}

/** Relative change of a count, in percent rounded to a whole number; undefined from zero. */
export function percentChange(current: number, previous: number | undefined): number | undefined {
  if (previous === undefined || previous === 0) return undefined;
  return Math.round(((current - previous) / previous) * 100);
}
