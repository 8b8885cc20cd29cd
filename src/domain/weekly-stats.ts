import { readKeywords, type Thread } from "../insight/schemas.js";
import { questionStatusLabel, sentimentLabel, type QuestionStatus, type Tone } from "./sentiment.js";
import { KeywordCounter, MIN_THEME_THREADS } from "./weekly-keywords.js";
import { TopN } from "./weekly-top.js";
import { dayIndex, timeOf, WEEK_DAYS } from "./weekly-window.js";

/*
 * A week of threads folded into counts, one thread at a time: the listing is streamed page by
 * page and nothing but these counters and a few top-N lists is kept (plus the ids seen, so a
 * thread that pages shifting sent twice counts once: ~100 bytes a thread).
 *
 * Every count of a summary comes from this one pass over the same threads: a thread counts
 * when its last activity falls in one of the week's calendar days, and it counts in that day.
 * So the header's threads, the per-day counts (busiest days, chart) and the sentiment counts
 * always add up to each other.
 */

/** Display order of tones: good news first, "not rated" last. */
export const TONES: readonly Tone[] = ["positive", "neutral", "mixed", "negative", "unknown"];
export type ToneCounts = Record<Tone, number>;
export const emptyTones = (): ToneCounts => ({ positive: 0, neutral: 0, mixed: 0, negative: 0, unknown: 0 });

export type QuestionCounts = Record<QuestionStatus, number> & { total: number };
const emptyQuestions = (): QuestionCounts => ({
  total: 0,
  answered: 0,
  partial: 0,
  unanswered: 0,
  pending: 0,
  unknown: 0,
});

/** What a summary shows of one thread. Untrusted text: escape when rendering. */
export interface ThreadRef {
  id: string;
  title: string;
  messageCount: number | undefined;
  firstMessageDate: string | undefined;
  lastMessageDate: string | undefined;
  sentiment: string | undefined;
  questionResponseStatus: string | undefined;
}

export interface WeekStats {
  /** Threads whose last activity falls in the week. */
  threads: number;
  /** Sum of the threads' message counts. */
  messages: number;
  /** Threads whose listing item had no message count (left out of `messages`). */
  threadsWithoutCount: number;
  sentiment: ToneCounts;
  /** Tone counts per calendar day of the week (0 = oldest), by each thread's last activity. */
  sentimentByDay: ToneCounts[];
  /** Threads per calendar day of last activity (the sum of each day's tone counts). */
  threadsByDay: number[];
  /** Ids of the threads counted, for per-channel lookups (marked handled here). */
  threadIds: string[];
  /** Ids of the question-led threads not answered (what "Still open" is drawn from). */
  openQuestionIds: string[];
  /** Keywords of at least two threads (recurring themes), most threads first. */
  keywords: { keyword: string; count: number }[];
  /** True when there were so many distinct keywords that counts are lower bounds. */
  keywordsApproximate: boolean;
  /** Question-led threads by response status. */
  questions: QuestionCounts;
  /** Question-led threads not (yet) answered, quiet longest first. */
  awaitingAnswer: ThreadRef[];
  /** Most messages first. */
  mostActive: ThreadRef[];
  /** Items sent twice by the listing (pages shift while new threads arrive); counted once. */
  duplicates: number;
  /** Items whose last activity lies outside the week. */
  outside: number;
  /** Items without a readable last activity date: they cannot be placed in a day, so are left out. */
  undated: number;
}

export interface WeekAccumulatorOptions {
  /**
   * The week's eight day boundaries (WeekWindow.dayStarts or prevDayStarts): a thread counts
   * only when its last activity lies in [dayStarts[0], dayStarts[7]), in the day it falls in.
   */
  dayStarts: readonly number[];
  /** How many threads the "most active" list keeps; default 10. */
  topN?: number;
  /** How many open questions are kept, so that some remain once handled ones leave; default 50. */
  awaitingKept?: number;
  /** How many keywords the result lists; default 10. */
  keywordsShown?: number;
  /** Distinct keywords counted exactly; default 5,000. */
  keywordCapacity?: number;
}

const toRef = (t: Thread): ThreadRef => ({
  id: t.id,
  title: t.title,
  messageCount: t.messageCount,
  firstMessageDate: t.firstMessageDate,
  lastMessageDate: t.lastMessageDate,
  sentiment: t.sentiment ?? undefined,
  questionResponseStatus: t.questionResponseStatus ?? undefined,
});

/** A thread in a top list, with its last activity parsed once (comparisons run often). */
interface Ranked {
  ref: ThreadRef;
  last: number;
}

/** Orders by a number descending, then by id, so results never depend on arrival order. */
const moreMessages = (a: Ranked, b: Ranked) => {
  const d = (a.ref.messageCount ?? -1) - (b.ref.messageCount ?? -1);
  if (d !== 0) return d > 0;
  const t = a.last - b.last;
  if (t !== 0 && !Number.isNaN(t)) return t > 0;
  return a.ref.id < b.ref.id;
};

/** Quiet longest first: the oldest last activity; unknown dates last. */
const quietLonger = (a: Ranked, b: Ranked) => {
  if (Number.isNaN(a.last) !== Number.isNaN(b.last)) return Number.isNaN(b.last);
  if (a.last !== b.last && !Number.isNaN(a.last)) return a.last < b.last;
  return a.ref.id < b.ref.id;
};

export class WeekAccumulator {
  readonly #o: Required<WeekAccumulatorOptions>;
  readonly #seen = new Set<string>();
  readonly #keywords: KeywordCounter;
  readonly #mostActive: TopN<Ranked>;
  readonly #awaiting: TopN<Ranked>;
  #threads = 0;
  #messages = 0;
  #withoutCount = 0;
  #duplicates = 0;
  #outside = 0;
  readonly #undated = new Set<string>();
  readonly #open: string[] = [];
  readonly #sentiment = emptyTones();
  readonly #byDay: ToneCounts[] = Array.from({ length: WEEK_DAYS }, emptyTones);
  readonly #questions = emptyQuestions();

  constructor(o: WeekAccumulatorOptions) {
    this.#o = { topN: 10, awaitingKept: 50, keywordsShown: 10, keywordCapacity: 5_000, ...o };
    this.#keywords = new KeywordCounter(this.#o.keywordCapacity);
    this.#mostActive = new TopN(this.#o.topN, moreMessages);
    this.#awaiting = new TopN(this.#o.awaitingKept, quietLonger);
  }

  get threads(): number {
    return this.#threads;
  }

  /** Folds one thread in; false when it was a repeat, undated or outside the week. */
  add(t: Thread): boolean {
    const last = timeOf(t.lastMessageDate);
    if (Number.isNaN(last)) {
      this.#undated.add(t.id);
      return false;
    }
    const day = dayIndex(last, this.#o.dayStarts);
    const counts = day === undefined ? undefined : this.#byDay[day];
    if (counts === undefined) {
      this.#outside++;
      return false;
    }
    if (this.#seen.has(t.id)) {
      this.#duplicates++;
      return false;
    }
    this.#seen.add(t.id);
    this.#threads++;
    if (t.messageCount === undefined) this.#withoutCount++;
    else this.#messages += t.messageCount;

    // Only a real value is a tone; "Not rated yet" (absent) and unrecognised labels are "not rated".
    const tone = sentimentLabel(t.sentiment).tone;
    this.#sentiment[tone]++;
    counts[tone]++;

    this.#keywords.addThread(readKeywords(t));
    const ref = { ref: toRef(t), last };
    this.#mostActive.offer(ref);
    if (t.isQuestionLed === true) {
      const status = questionStatusLabel(t.questionResponseStatus).status;
      this.#questions.total++;
      this.#questions[status]++;
      if (status !== "answered") {
        this.#awaiting.offer(ref);
        this.#open.push(t.id);
      }
    }
    return true;
  }

  result(): WeekStats {
    return {
      threads: this.#threads,
      messages: this.#messages,
      threadsWithoutCount: this.#withoutCount,
      sentiment: { ...this.#sentiment },
      sentimentByDay: this.#byDay.map((d) => ({ ...d })),
      threadsByDay: this.#byDay.map((d) => TONES.reduce((n, tone) => n + d[tone], 0)),
      // Sorted: results never depend on the order pages arrived in.
      threadIds: [...this.#seen].sort(),
      openQuestionIds: [...this.#open].sort(),
      // Recurring themes only: a keyword of a single thread says nothing about the week.
      keywords: this.#keywords.top(this.#o.keywordsShown).filter((k) => k.count >= MIN_THEME_THREADS),
      keywordsApproximate: this.#keywords.approximate,
      questions: { ...this.#questions },
      awaitingAnswer: this.#awaiting.items().map((r) => r.ref),
      mostActive: this.#mostActive.items().map((r) => r.ref),
      duplicates: this.#duplicates,
      outside: this.#outside,
      undated: this.#undated.size,
    };
  }
}

/** Folds a whole list at once (tests, small inputs). */
export function weekStats(threads: Iterable<Thread>, o: WeekAccumulatorOptions): WeekStats {
  const acc = new WeekAccumulator(o);
  for (const t of threads) acc.add(t);
  return acc.result();
}
