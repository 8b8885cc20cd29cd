/*
 * The emulator's stand-in for semantic search: a deterministic word-overlap score over thread
 * title (weight 3), keywords (2) and summary (1), and over message text. Pure functions.
 */
import type { EmulatedMessage, EmulatedThread } from "./types.js";

const STOPWORDS = new Set(
  "a an and are as at be but by can do does for from how i if in is it its my no not of on or so that the this to was we what when where which who why with you".split(
    " ",
  ),
);

/** Lower-case words without stopwords, a trailing plural "s" dropped. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (raw.length < 2 || STOPWORDS.has(raw)) continue;
    out.push(raw.length > 3 && raw.endsWith("s") && !raw.endsWith("ss") ? raw.slice(0, -1) : raw);
  }
  return out;
}

interface ThreadTokens {
  title: Set<string>;
  keywords: Set<string>;
  summary: Set<string>;
}

// Stored threads and messages are replaced, never mutated, on change, so caching by object is safe.
const threadCache = new WeakMap<EmulatedThread, ThreadTokens>();
const messageCache = new WeakMap<EmulatedMessage, Set<string>>();

function threadTokens(t: EmulatedThread): ThreadTokens {
  let tokens = threadCache.get(t);
  if (!tokens) {
    tokens = {
      title: new Set(tokenize(t.title)),
      keywords: new Set(tokenize(t.keywords.join(" "))),
      summary: new Set(tokenize(t.summary)),
    };
    threadCache.set(t, tokens);
  }
  return tokens;
}

function messageTokens(m: EmulatedMessage): Set<string> {
  let tokens = messageCache.get(m);
  if (!tokens) {
    tokens = new Set(tokenize(m.messageText));
    messageCache.set(m, tokens);
  }
  return tokens;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** In [0, 1]: each query term counts 3 in the title, else 2 in keywords, else 1 in the summary. */
export function scoreThread(terms: readonly string[], t: EmulatedThread): number {
  if (terms.length === 0) return 0;
  const tk = threadTokens(t);
  let sum = 0;
  for (const term of terms)
    sum += tk.title.has(term) ? 3 : tk.keywords.has(term) ? 2 : tk.summary.has(term) ? 1 : 0;
  return round(sum / (3 * terms.length));
}

/** In [0, 0.9]: the share of query terms in the text, a little below a title match. */
export function scoreMessage(terms: readonly string[], m: EmulatedMessage): number {
  if (terms.length === 0 || m.isSystemMessage) return 0;
  const tk = messageTokens(m);
  let hits = 0;
  for (const term of terms) if (tk.has(term)) hits++;
  return round((0.9 * hits) / terms.length);
}

export type SearchHit =
  | { type: "thread"; score: number; date: string; thread: EmulatedThread }
  | { type: "message"; score: number; date: string; message: EmulatedMessage };

/** Every thread and message with a positive score, best first (ties: newer, threads, id). */
export function searchGroup(
  text: string,
  threads: readonly EmulatedThread[],
  messages: readonly EmulatedMessage[],
): SearchHit[] {
  const terms = [...new Set(tokenize(text))];
  const hits: SearchHit[] = [];
  for (const thread of threads) {
    const score = scoreThread(terms, thread);
    if (score > 0) hits.push({ type: "thread", score, date: thread.lastMessageDate, thread });
  }
  for (const message of messages) {
    const score = scoreMessage(terms, message);
    if (score > 0) hits.push({ type: "message", score, date: message.messageDate, message });
  }
  const idOf = (h: SearchHit) => (h.type === "thread" ? h.thread.id : h.message.id);
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      (a.date === b.date ? 0 : a.date < b.date ? 1 : -1) ||
      (a.type === b.type ? 0 : a.type === "thread" ? -1 : 1) ||
      (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0),
  );
  return hits;
}
