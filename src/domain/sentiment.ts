/*
 * The service's sentiment and questionResponseStatus values are "not shown" in its
 * interface (docs/using.md rule 5), so both are read tolerantly: case, spacing, `_`/`-`,
 * intensifiers and common synonyms are understood; anything else is kept as text.
 */

export type Tone = "positive" | "neutral" | "negative" | "mixed" | "unknown";

export interface SentimentLabel {
  /** What a reader sees; untrusted when it echoes an unrecognised value: escape it. */
  label: string;
  /** A Slack emoji code such as `:red_circle:`. */
  emoji: string;
  tone: Tone;
}

export const TONE_EMOJI: Record<Tone, string> = {
  positive: ":large_green_circle:",
  neutral: ":white_circle:",
  negative: ":red_circle:",
  mixed: ":large_yellow_circle:",
  unknown: ":white_circle:",
};

/**
 * Shown beside a value the service has not given yet. Not the hourglass: that one means "on
 * its way" only (EMOJI in slack/render/wording.ts).
 */
export const PENDING_EMOJI = ":white_circle:";
/** Labels echoed from the service are capped: they sit in one line of a message. */
const MAX_LABEL = 40;

const TONE_WORDS: Record<string, Exclude<Tone, "unknown">> = {
  positive: "positive",
  pos: "positive",
  good: "positive",
  happy: "positive",
  satisfied: "positive",
  pleased: "positive",
  grateful: "positive",
  thankful: "positive",
  appreciative: "positive",
  excited: "positive",
  enthusiastic: "positive",
  optimistic: "positive",
  negative: "negative",
  neg: "negative",
  bad: "negative",
  frustrated: "negative",
  frustration: "negative",
  angry: "negative",
  annoyed: "negative",
  upset: "negative",
  unhappy: "negative",
  disappointed: "negative",
  dissatisfied: "negative",
  hostile: "negative",
  toxic: "negative",
  neutral: "neutral",
  neu: "neutral",
  informational: "neutral",
  factual: "neutral",
  objective: "neutral",
  mixed: "mixed",
  ambivalent: "mixed",
};

const INTENSIFIERS = new Set([
  "very",
  "slightly",
  "somewhat",
  "mostly",
  "mildly",
  "moderately",
  "strongly",
  "highly",
  "extremely",
  "quite",
  "weakly",
  "overall",
  "sentiment",
  "leaning",
  "and",
  "to",
]);

const NEGATIONS = new Set(["not", "no", "non", "un"]);

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "VERY_Negative " -> "very negative". */
function normalise(raw: string): string {
  return raw
    .trim()
    .toLowerCase()
    .replace(/[\s_\-/]+/g, " ");
}

/** Keeps an unrecognised value readable and short: one line, capped. */
function asText(raw: string): string {
  const chars = Array.from(raw.replace(/\s+/g, " ").trim()); // code points: never half an emoji
  return chars.length > MAX_LABEL
    ? `${chars
        .slice(0, MAX_LABEL - 1)
        .join("")
        .trimEnd()}…`
    : chars.join("");
}

function toneOfWords(words: string[]): Tone {
  if (words.some((w) => NEGATIONS.has(w))) return "unknown";
  const tones = new Set<Tone>();
  let unknownWords = 0;
  for (const w of words) {
    if (INTENSIFIERS.has(w)) continue;
    const t = TONE_WORDS[w];
    if (t) tones.add(t);
    else unknownWords++;
  }
  if (tones.size === 0 || unknownWords > 0) return "unknown";
  if (tones.has("mixed") || (tones.has("positive") && tones.has("negative"))) return "mixed";
  // "neutral to positive" leans to the non-neutral side.
  tones.delete("neutral");
  const [only] = [...tones];
  return tones.size === 1 && only ? only : "neutral";
}

/** A score in -1..1 as text ("0.8", "-0.35"); other numbers are not a scale we know. */
function toneOfScore(s: string): Tone | undefined {
  if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(s)) return undefined;
  const n = Number(s);
  if (n < -1 || n > 1) return "unknown";
  return n >= 0.25 ? "positive" : n <= -0.25 ? "negative" : "neutral";
}

/**
 * The one phrase for a sentiment the service has not given yet, wherever it shows (card,
 * digest, listing, alert, weekly summary).
 */
export const NOT_RATED = "not rated yet";

/**
 * A reader-facing label for the service's sentiment value. Absent or blank: tone
 * "unknown", label "Not rated yet" (the service has not rated the thread yet).
 */
export function sentimentLabel(raw: string | null | undefined): SentimentLabel {
  const text = raw?.trim() ?? "";
  if (!text) return { label: capitalise(NOT_RATED), emoji: PENDING_EMOJI, tone: "unknown" };
  const scored = toneOfScore(text);
  if (scored === "unknown") return { label: asText(text), emoji: TONE_EMOJI.unknown, tone: "unknown" };
  if (scored) return { label: `${capitalise(scored)} (${text})`, emoji: TONE_EMOJI[scored], tone: scored };

  const norm = normalise(text);
  const words = norm.split(" ");
  const tone = toneOfWords(words);
  if (tone === "unknown") return { label: asText(text), emoji: TONE_EMOJI.unknown, tone };
  // Abbreviations read better spelled out; real words (incl. "very negative") are kept.
  const label = words.length === 1 && ["pos", "neg", "neu"].includes(norm) ? tone : norm;
  return { label: asText(capitalise(label)), emoji: TONE_EMOJI[tone], tone };
}

// --- Question response status ---------------------------------------------------------------

export type QuestionStatus = "answered" | "partial" | "unanswered" | "pending" | "unknown";

export interface QuestionStatusLabel {
  label: string;
  emoji: string;
  status: QuestionStatus;
}

export const STATUS_EMOJI: Record<QuestionStatus, string> = {
  answered: ":white_check_mark:",
  partial: ":large_orange_diamond:",
  unanswered: ":question:",
  // Same as EMOJI.awaitingAnswer in slack/render/wording.ts (domain imports nothing from slack/).
  pending: ":clock3:",
  unknown: ":grey_question:",
};

const STATUS_LABEL: Record<Exclude<QuestionStatus, "unknown">, string> = {
  answered: "Answered",
  partial: "Partially answered",
  unanswered: "Unanswered",
  pending: "Awaiting answer",
};

/** Checked in order: the first rule whose pattern matches the normalised value wins. */
const STATUS_RULES: ReadonlyArray<[RegExp, Exclude<QuestionStatus, "unknown">]> = [
  [/\bpartial(ly)?\b|\bsome(what)? answered\b/, "partial"],
  [
    /\b(unanswered|not answered|no (answer|response|reply|replies)|unresolved|not resolved|ignored|open)\b/,
    "unanswered",
  ],
  [/\b(pending|awaiting|waiting|in progress|needs? (an? )?(answer|response|reply)|follow up)\b/, "pending"],
  [/\b(answered|resolved|solved|responded|replied|has (an )?answer|accepted)\b/, "answered"],
];

/** A reader-facing label for `questionResponseStatus`; unrecognised values are kept as text. */
export function questionStatusLabel(raw: string | null | undefined): QuestionStatusLabel {
  const text = raw?.trim() ?? "";
  if (!text) return { label: "Unknown", emoji: STATUS_EMOJI.unknown, status: "unknown" };
  const norm = normalise(text);
  for (const [pattern, status] of STATUS_RULES) {
    if (pattern.test(norm)) return { label: STATUS_LABEL[status], emoji: STATUS_EMOJI[status], status };
  }
  return { label: asText(text), emoji: STATUS_EMOJI.unknown, status: "unknown" };
}
