/*
 * A Slack message's text made into a search query (the "Search the community for this"
 * shortcut): Slack's markup (mentions, links, emoji codes, formatting) removed, whitespace
 * collapsed, and a long text cut at a word boundary, since a semantic search reads the gist of
 * a few sentences better than a page. Pure.
 */

/** Characters of a query taken from a message: about three sentences. */
export const MESSAGE_QUERY_MAX = 300;

export type SearchText = { ok: true; text: string; cut: boolean } | { ok: false };

const unescape = (s: string) => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** Slack markup to plain words: `<@U1|maya>` → maya, `<https://x|docs>` → docs, a bare link or `<!here>` → nothing. */
function plainWords(raw: string): string {
  const tokensOut = raw
    .replace(/<([^<>|]*)\|([^<>]*)>/g, (_m, _target: string, label: string) => ` ${label} `)
    .replace(/<[^<>]*>/g, " ");
  // Entities after the tokens (a literal "<" is sent as &lt;), then quote markers and formatting.
  return (
    unescape(tokensOut)
      .replace(/^\s*>+/gm, " ")
      .replace(/:[a-z0-9_+-]+(?:::skin-tone-\d)?:/gi, " ")
      .replace(/```/g, " ")
      .replace(/[`*~]+/g, " ")
      .replace(/\s+/g, " ")
      // A mention or emoji taken out leaves "upgrading , anyone": the comma goes back to its word.
      .replace(/ ([,.;:!?])/g, "$1")
      .trim()
  );
}

/**
 * The query a message stands for: its words, at most `max` characters, cut after a whole word
 * (`cut` says so). Not usable (`ok: false`) when no word of two letters or digits is left: an
 * emoji, a link alone, a file without a comment.
 */
export function searchTextOf(raw: string, max = MESSAGE_QUERY_MAX): SearchText {
  const text = plainWords(raw);
  if (!/[\p{L}\p{N}]{2,}/u.test(text)) return { ok: false };
  if (text.length <= max) return { ok: true, text, cut: false };
  const head = text.slice(0, max + 1);
  const lastSpace = head.lastIndexOf(" ");
  // One very long word (a hash, a URL-like token): cut inside it rather than keep nothing.
  const cutAt = lastSpace > max * 0.5 ? lastSpace : max;
  const cut = text
    .slice(0, cutAt)
    .replace(/[\s,;:.!?(\-–—]+$/u, "")
    .trim();
  return { ok: true, text: cut, cut: true };
}

/** A message as Slack sends it in a shortcut: its text, else the text of its blocks and attachments. */
export function messageText(m: {
  text?: string | undefined;
  blocks?: unknown;
  attachments?: unknown;
}): string {
  if (m.text?.trim()) return m.text;
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 8 || !v || typeof v !== "object") return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    // rich_text elements carry `text` on their leaves; section blocks on their text object.
    if (typeof o.text === "string" && (o.type === "text" || o.type === "mrkdwn" || o.type === "plain_text")) {
      out.push(o.text);
    }
    for (const k of ["elements", "text", "fields", "blocks"]) if (k in o) walk(o[k], depth + 1);
  };
  walk(m.blocks, 0);
  if (Array.isArray(m.attachments)) {
    for (const a of m.attachments as Record<string, unknown>[]) {
      const t = typeof a.text === "string" ? a.text : typeof a.fallback === "string" ? a.fallback : "";
      if (t) out.push(t);
    }
  }
  return out.join(" ");
}
