import type { RatedTone } from "../domain/weekly-compare.js";
import { defaultRange, rangeOfWords, readTimeRange, type Clock } from "./time-range.js";
import type { GroupRef, Understanding } from "./types.js";

/*
 * A question in plain words -> what to count: the period (time-range.ts), the groups it may
 * name (resolved later by rule 13's resolver), a feeling ("unhappy" -> negative), unanswered
 * or question-led threads, and the rest as the topic for the service's semantic search.
 * Nothing is guessed: what cannot be read is refused with an example of what can. Pure.
 */

/** Questions the app shows as examples: each is read by the rules below (tested). */
export const EXAMPLE_QUESTIONS = [
  "what are people unhappy about this week?",
  "unanswered questions since Monday",
  "what are people saying about pricing in the last 30 days?",
  "is the new release going down badly?",
] as const;

export const MAX_QUESTION_LENGTH = 300;

export type Reading =
  | { ok: true; understood: Understanding }
  /** `examples`: nothing to count in it (a greeting, "help"); `refused`: a question it cannot answer. */
  | { ok: false; kind: "examples" | "refused"; reply: string };

export interface ReadOptions extends Clock {
  /** The period's words of the conversation's earlier question, kept when this one names none. */
  keptRangeWords?: string | undefined;
}

const examplesLine = (n = 2) =>
  EXAMPLE_QUESTIONS.slice(0, n)
    .map((q) => `“${q}”`)
    .join(" or ");

/** What the assistant can be asked, for greetings, "help" and empty questions. */
export function examplesReply(): string {
  return [
    "Ask me about the community in plain words, for example:",
    ...EXAMPLE_QUESTIONS.map((q) => `• “${q}”`),
    "I count threads from the service's listings and search: a period (default: the last 7 days), a topic, a feeling (unhappy, happy), unanswered questions. Name a group to look in one (“… in Lumen DB Support”).",
  ].join("\n");
}

const refused = (reply: string): Reading => ({ ok: false, kind: "refused", reply });

// --- Slack text -> words ------------------------------------------------------------------------

/**
 * The question as typed: mentions of people and the app left out, a channel link kept aside
 * (its groups are the scope), links shown as their label, Slack's escapes undone.
 */
export function cleanQuestion(raw: string): { text: string; channelId?: string } {
  let channelId: string | undefined;
  const text = raw
    .replace(/<#([CG][A-Z0-9]+)(?:\|[^>]*)?>/g, (_m, id: string) => {
      channelId ??= id;
      return " ";
    })
    .replace(/<[@!][^>]*>/g, " ")
    .replace(/<((?:https?|mailto):[^|>]*)(?:\|([^>]*))?>/g, (_m, url: string, label?: string) => label ?? url)
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();
  return channelId ? { text, channelId } : { text };
}

// --- Patterns -----------------------------------------------------------------------------------

const TONE_PATTERNS: ReadonlyArray<[RatedTone, RegExp]> = [
  // First: "not happy" is a negative, and "going down badly" must not leave "going down".
  [
    "negative",
    /\bnot\s+(?:happy|pleased|satisfied|glad)\b|\bgoing\s+(?:down\s+)?badly\b|\b(?:unhappy|angry|negative(?:ly)?|upset|frustrat(?:ed|ing|ion)|annoyed|mad|furious|complain(?:ing|s|ed|ts?)?|disappoint(?:ed|ing|ment)|dissatisfied|unsatisfied|hat(?:e|es|ing)|badly)\b/gi,
  ],
  [
    "positive",
    /\bgoing\s+(?:down\s+)?well\b|\b(?:happy|positive(?:ly)?|pleased|satisfied|lov(?:e|es|ing)|glad|delighted|excited|prais(?:e|ing)|thankful|grateful|enjoy(?:s|ing)?)\b/gi,
  ],
  ["neutral", /\bneutral\b/gi],
  ["mixed", /\bmixed\b/gi],
];

const TONE_WORD: Record<RatedTone, string> = {
  negative: "unhappy",
  positive: "happy",
  neutral: "neutral",
  mixed: "mixed",
};

const UNANSWERED =
  /\b(?:un-?answered|unresolved|(?:not|never)\s+(?:been\s+|yet\s+)?answered|(?:no\s*one|nobody)\s+(?:has\s+)?(?:answered|replied)|without\s+(?:an?\s+)?(?:answers?|repl(?:y|ies)|responses?)|no\s+(?:answers?|repl(?:y|ies)|responses?)|still\s+open|open\s+questions?|awaiting\s+(?:an?\s+)?(?:answers?|repl(?:y|ies))|waiting\s+for\s+(?:an?\s+)?(?:answers?|repl(?:y|ies)))\b/gi;
const QUESTIONS = /\bquestions?\b/gi;

const WHO =
  /^\s*(?:who|whom)\b|\bwhich\s+(?:users?|members?|persons?|people|authors?)\b|\bhow\s+many\s+(?:users?|members?|people)\b|\bmost\s+active\s+(?:users?|members?|people)\b/i;
const ACTION =
  /^\s*(?:please\s+)?(?:subscribe|unsubscribe|mark|assign|remind|delete|remove|post|send|share|follow|mute|notify|schedule|set\s+up|turn\s+(?:on|off))\b/i;
const PREDICTION = /\b(?:predict|forecast|will\s+(?:people|users|they|it|the\s+community))\b/i;

/** Words of a question that carry no topic. */
const FILLER = new Set(
  (
    "what whats which how hows are is was were be been being do does did doing people folks everyone " +
    "anyone someone somebody they them their saying say said says talking talk talked discussing discuss " +
    "discussed mention mentioning mentioned about around regarding re on the a an any anything something " +
    "there show me list give tell find get see threads thread discussions discussion conversations " +
    "conversation messages message topics topic chats going this that these those in of for with and or " +
    "all lately recently currently now right please pls can could would you i we our my us much many lots " +
    "lot have has had to still yet new latest recent happening up so far at it its from by into over some " +
    "more most top main biggest hot trending reporting reported report asking asked ask feel feeling " +
    "feelings think thinks opinion opinions sentiment mood vibe vibes react reacting reaction reactions " +
    "overall summary summarize summarise overview activity busy active status update updates community " +
    "going on down out here there's whats how's what's it's you're i'm let know tell happened happen group groups one ones thing things stuff"
  ).split(" "),
);
/** Words that ask for an overview of the period when nothing narrower is said. */
const OVERVIEW = new Set(
  (
    "happening happened going new saying talking discussing summary summarize summarise overview activity " +
    "busy active update updates feel feeling mood sentiment vibe vibes people community anything threads"
  ).split(" "),
);
const CHATTER = new Set(
  "hi hello hey hiya yo thanks thank thx ty ok okay cool great nice help hm hmm ping test good morning evening".split(
    " ",
  ),
);

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}+#]+$/gu, ""))
    .filter((w) => w !== "");

/** The topic words of a residual text: what is left once the filler is gone, as typed. */
function topicOf(text: string): string | undefined {
  const kept = text
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}"'“]+|[^\p{L}\p{N}+#"'”]+$/gu, ""))
    .filter((w) => w !== "" && !FILLER.has(w.toLowerCase()) && !/^[^\p{L}\p{N}]+$/u.test(w))
    .filter((w) => w.length > 1 || /\d/.test(w));
  const topic = kept.join(" ").trim();
  return topic === "" ? undefined : topic;
}

/** Blanks [start, end) with spaces: later patterns cannot match across what was taken out. */
const blank = (s: string, start: number, end: number) =>
  s.slice(0, start) + " ".repeat(Math.max(0, end - start)) + s.slice(end);

function blankAll(s: string, re: RegExp): { text: string; found: boolean } {
  let found = false;
  const text = s.replace(re, (m) => {
    found = true;
    return " ".repeat(m.length);
  });
  return { text, found };
}

// --- Groups -------------------------------------------------------------------------------------

const GROUP_WORD = /\s+(?:chat\s+)?group\b/i;
const GROUP_WORD_END = /\s+(?:chat\s+)?group$/i;
/** "… in Lumen DB Support lately?": words after a name that are not part of it. */
const TRAILING_ADVERBS =
  /(?:\s+(?:lately|recently|currently|now|please|pls|so\s+far|these\s+days|at\s+the\s+moment|right\s+now))+$/i;

/**
 * Phrases that may name a group: "… in the Lumen DB group" (said as a group: explicit), "group
 * Lumen DB Support", or what follows the last "in"/"from" ("… in Lumen DB Support"), the
 * longer reading first. Each carries the topic left when it is a group.
 */
function groupRefsOf(residual: string): GroupRef[] {
  const out: GroupRef[] = [];
  const add = (ref: string, explicit: boolean, start: number, end: number) => {
    const name = ref
      .replace(/^[\s"“']+|[\s"”'?!.,;:]+$/g, "")
      .replace(/^the\s+/i, "")
      .replace(GROUP_WORD_END, "")
      .replace(TRAILING_ADVERBS, "")
      .trim();
    if (!name || name.length > 80 || name.split(/\s+/).length > 8 || !/[\p{L}\p{N}]/u.test(name)) return;
    // "… in the X group about Y": the explicit reading already took "X".
    if (!explicit && GROUP_WORD.test(name)) return;
    if (out.some((g) => g.ref.toLowerCase() === name.toLowerCase())) return;
    const topic = topicOf(blank(residual, start, end));
    out.push({ ref: name, explicit, ...(topic ? { topic } : {}) });
  };
  const prefixed = /(?:^|\b(?:in|from|of|the)\s+)(?:chat\s+)?group\s+(?:called\s+|named\s+)?(.+)$/i.exec(
    residual,
  );
  if (prefixed?.[1]) add(prefixed[1], true, prefixed.index, residual.length);
  const leads = [...residual.matchAll(/\b(?:in|from|of|for|on|at)\s+(?:the\s+)?/gi)];
  for (const lead of leads) {
    const start = lead.index;
    const after = residual.slice(start + lead[0].length);
    const g = GROUP_WORD.exec(after);
    if (g) add(after.slice(0, g.index), true, start, start + lead[0].length + g.index + g[0].length);
  }
  const implicit = leads.filter((l) => /^(?:in|from)\b/i.test(l[0])).slice(-2);
  for (const lead of implicit) {
    const from = lead.index + lead[0].length;
    add(residual.slice(from), false, lead.index, residual.length);
    // "… in Saturday Rides, what happened": a name ends at a comma or a colon.
    const stop = /[,;:]/.exec(residual.slice(from));
    if (stop) add(residual.slice(from, from + stop.index), false, lead.index, from + stop.index + 1);
  }
  return out;
}

// --- The reading --------------------------------------------------------------------------------

/**
 * Reads one question. `keptRangeWords` is the conversation's earlier period, kept when this
 * question names none ("and what about pricing?").
 */
export function understandQuestion(raw: string, o: ReadOptions): Reading {
  const { text, channelId } = cleanQuestion(raw);
  if (!text && !channelId) return { ok: false, kind: "examples", reply: examplesReply() };
  if (text.length > MAX_QUESTION_LENGTH) {
    return refused(
      `That question is too long (${text.length} characters; at most ${MAX_QUESTION_LENGTH}). Ask about one thing at a time, e.g. ${examplesLine()}.`,
    );
  }
  if (ACTION.test(text)) {
    return refused(
      "I only answer questions about the community; I change nothing. To set something up, use `/insight help`. To ask, try " +
        `${examplesLine()}.`,
    );
  }
  if (WHO.test(text)) {
    return refused(
      `I count threads and what the service says about them, not people. Try ${examplesLine()}.`,
    );
  }
  if (PREDICTION.test(text)) {
    return refused(`I can only count what was already said, not predict. Try ${examplesLine()}.`);
  }

  // Quoted words are the topic as written: nothing else is read into them.
  let work = text;
  const quoted: string[] = [];
  for (const m of text.matchAll(/["“]([^"”]{1,200})["”]/g)) {
    if (m[1]?.trim()) quoted.push(m[1].trim());
    work = blank(work, m.index, m.index + m[0].length);
  }

  const time = readTimeRange(work, o);
  if (time.kind === "refused") return refused(time.reply);
  let range;
  let rangeSource: Understanding["rangeSource"];
  if (time.kind === "range") {
    range = time.range;
    rangeSource = "said";
    for (const [start, end] of time.spans) work = blank(work, start, end);
  } else if (o.keptRangeWords !== undefined) {
    range = rangeOfWords(o.keptRangeWords, o);
    rangeSource = o.keptRangeWords ? ("kept" as const) : ("default" as const);
  } else {
    range = defaultRange(o);
    rangeSource = "default" as const;
  }

  const unanswered = blankAll(work, UNANSWERED);
  work = unanswered.text;
  const tones: RatedTone[] = [];
  for (const [tone, re] of TONE_PATTERNS) {
    const r = blankAll(work, re);
    work = r.text;
    if (r.found) tones.push(tone);
  }
  if (tones.length > 1) {
    const named = tones.map((t) => TONE_WORD[t]).join(" and ");
    return refused(
      `You asked for ${named} threads at once. Ask for one feeling, or leave it out to see how the sentiment splits, e.g. “how do people feel about pricing this week?”.`,
    );
  }
  const questions = blankAll(work, QUESTIONS);
  work = questions.text;

  const residual = work.replace(/\s+/g, " ").trim();
  const groupRefs = groupRefsOf(residual);
  const topicWords = [...quoted, topicOf(residual)].filter((t): t is string => !!t);
  const topic = topicWords.join(" ").trim() || undefined;
  const withQuoted = (g: GroupRef): GroupRef => {
    const t = [...quoted, g.topic]
      .filter((x): x is string => !!x)
      .join(" ")
      .trim();
    return { ref: g.ref, explicit: g.explicit, ...(t ? { topic: t } : {}) };
  };

  const understood: Understanding = {
    range,
    rangeSource,
    groupRefs: groupRefs.map(withQuoted),
    ...(channelId ? { channelId } : {}),
    ...(tones[0] ? { tone: tones[0] } : {}),
    unanswered: unanswered.found,
    questionsOnly: questions.found && !unanswered.found,
    ...(topic ? { topic } : {}),
  };

  const narrowed =
    time.kind === "range" ||
    understood.tone !== undefined ||
    understood.unanswered ||
    understood.questionsOnly ||
    groupRefs.length > 0 ||
    channelId !== undefined;
  if (!narrowed) {
    const all = words(text);
    const topicOnlyChatter = words(topic ?? "").every((w) => CHATTER.has(w));
    if (all.length === 0 || (topicOnlyChatter && all.every((w) => CHATTER.has(w) || FILLER.has(w)))) {
      // "what's happening?" asks for the period's overview; "hi" and "help" ask for nothing.
      if (!all.some((w) => OVERVIEW.has(w))) return { ok: false, kind: "examples", reply: examplesReply() };
    }
  }
  if (understood.topic && words(understood.topic).every((w) => CHATTER.has(w))) {
    const { topic: _chatter, ...rest } = understood;
    return { ok: true, understood: rest };
  }
  return { ok: true, understood };
}
