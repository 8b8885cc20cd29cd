/*
 * Untrusted text -> Slack text (docs/using.md rule 6). Pure functions, no I/O.
 *
 * Lengths are counted in UTF-16 code units (`string.length`). Slack's own count is never
 * larger than that, so a result that fits here fits there.
 */

export const ELLIPSIS = "…";

/** Invisible; placed inside a would-be mention so no parser sees one. */
const ZWJ = "\u200D";

/*
 * `@channel`, `@here` and `@everyone` written as bare words only become mentions when a
 * message is sent with `link_names` (we never set it) or when a mrkdwn text object's
 * `verbatim` is false and Slack "parses certain mentions" on its own. We do not rely on
 * either: a zero-width joiner after the `@` keeps the word looking the same and inert.
 */
const BROADCAST_WORD = /@(?=(?:channel|here|everyone))/gi;

/**
 * Escapes `&`, `<`, `>` as Slack requires, so community text cannot form `<!channel>`,
 * `<@U123>`, `<#C123>`, `<!subteam^…>` or a disguised `<https://x|label>` link; text that is
 * already escaped (`&lt;`) stays visible exactly as typed.
 */
export function escapeMrkdwn(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(BROADCAST_WORD, `@${ZWJ}`);
}

/**
 * For plain_text fields (headers, button labels). Slack does not parse them, so nothing is
 * escaped (an `&amp;` would show literally); an invisible joiner after every `<` and
 * broadcast `@` keeps the text inert should it ever be shown as mrkdwn (a copied title).
 */
function neutralisePlain(text: string): string {
  // Idempotent (a `<` already followed by the joiner is left alone): trimming may re-run it.
  return text.replace(/<(?!\u200D)/g, `<${ZWJ}`).replace(BROADCAST_WORD, `@${ZWJ}`);
}

// --- Cutting --------------------------------------------------------------------------------

// Made at the first cut: ICU's break rules cost ~2 MB of RSS, and most texts fit.
let graphemes: Intl.Segmenter | undefined;
/** Grapheme clusters longer than this (zalgo text) are cut by code point instead. */
const GRAPHEME_WINDOW = 64;
/** How far back a cut may move to land on a space instead of inside a word. */
const WORD_WINDOW = 24;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The greatest index <= limit that neither splits a surrogate pair nor, where cheap, a grapheme. */
function graphemeBoundary(text: string, limit: number): number {
  const start = Math.max(0, limit - GRAPHEME_WINDOW);
  let best = -1;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  for (const s of graphemes.segment(text.slice(start, Math.min(text.length, limit + GRAPHEME_WINDOW)))) {
    const end = start + s.index + s.segment.length;
    if (end > limit) break;
    best = end;
  }
  if (best !== -1) return best;
  // One cluster spans the whole window: settle for not splitting a surrogate pair.
  return isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit;
}

/**
 * Where a cut left half of `&amp;`, `&lt;`, `&gt;` or a numeric entity, the index of its `&`;
 * else -1. Only prefixes of real entities count, so raw text like "R&D" is cut normally.
 */
function partialEntityStart(text: string, cut: number): number {
  const amp = text.lastIndexOf("&", cut - 1);
  if (amp < 0 || cut - amp > 8) return -1;
  return /^&(?:a(?:mp?)?|lt?|gt?|#x?[0-9a-f]*)?$/i.test(text.slice(amp, cut)) ? amp : -1;
}

/**
 * Where to cut `text` so that the kept part has at most `limit` units: never inside a
 * surrogate pair, a grapheme cluster or an `&…;` entity, and at a space when one is near.
 */
function cutPoint(text: string, limit: number): number {
  if (limit >= text.length) return text.length;
  if (limit <= 0) return 0;
  let cut = graphemeBoundary(text, limit);
  const entity = partialEntityStart(text, cut);
  if (entity >= 0) cut = entity;
  const near = Math.min(WORD_WINDOW, Math.floor(cut / 4));
  for (let i = cut; i > 0 && i >= cut - near; i--) {
    if (/\s/.test(text.charAt(i)) || /\s/.test(text.charAt(i - 1))) return i;
  }
  return cut;
}

/**
 * Shortens `text` to at most `max` units, ending in "…" when anything was cut. Cuts at a
 * word boundary when one is near, never splits a surrogate pair or a character made of
 * several code points, and never leaves half an escape entity (`&am`).
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return "";
  return text.slice(0, cutPoint(text, max - 1)).trimEnd() + ELLIPSIS;
}

/**
 * Cuts the raw text first, then transforms it, so a cut can never land inside what the
 * transform produced; the kept prefix is the longest whose transformed form plus "…" fits.
 */
function transformWithin(text: string, max: number, transform: (s: string) => string): string {
  if (max <= 0) return "";
  // A transform never shortens text (escapes expand, joiners add), so only the first `max`
  // raw units can survive; the small extra keeps look-ahead (e.g. "@here") intact.
  const whole = transform(text.length > max ? text.slice(0, max + 16) : text);
  if (text.length <= max && whole.length <= max) return whole;
  const room = max - ELLIPSIS.length;
  // The transformed length grows with the prefix length: binary-search the longest that fits.
  let lo = 0;
  let hi = Math.min(text.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (transform(text.slice(0, mid)).length <= room) lo = mid;
    else hi = mid - 1;
  }
  // cutPoint only moves earlier, so the result still fits.
  return transform(text.slice(0, cutPoint(text, lo))).trimEnd() + ELLIPSIS;
}

/** Escapes for mrkdwn and guarantees the ESCAPED result is at most `max` units. */
export function escapeAndTruncate(text: string, max: number): string {
  return transformWithin(text, max, escapeMrkdwn);
}

/** One line (whitespace collapsed) of untrusted text for a plain_text field, at most `max` units. */
export function plainText(text: string, max: number): string {
  return transformWithin(text.replace(/\s+/g, " ").trim(), max, neutralisePlain);
}

/**
 * Shortens mrkdwn that is already escaped (built by our renderers) to at most `max` units,
 * without cutting an entity or one of our own `<…>` tokens (links) in half.
 */
export function truncateMrkdwn(mrkdwn: string, max: number): string {
  if (mrkdwn.length <= max) return mrkdwn;
  if (max <= 0) return "";
  let cut = cutPoint(mrkdwn, max - 1);
  // Escaped community text holds no raw `<`, so an unclosed one is a token of ours.
  const open = mrkdwn.lastIndexOf("<", cut - 1);
  if (open >= 0 && mrkdwn.lastIndexOf(">", cut - 1) < open) cut = open;
  return mrkdwn.slice(0, cut).trimEnd() + ELLIPSIS;
}
