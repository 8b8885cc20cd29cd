type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const MAX_PIECE = 160;

function clean(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > MAX_PIECE ? `${one.slice(0, MAX_PIECE - 1)}…` : one;
}

function textOf(t: unknown): string | undefined {
  if (typeof t === "string") return t;
  if (isObj(t) && typeof t.text === "string") return t.text;
  return undefined;
}

function richTextOf(v: unknown): string {
  if (Array.isArray(v)) return v.map(richTextOf).join("");
  if (!isObj(v)) return "";
  if (typeof v.text === "string") return v.text;
  if (typeof v.url === "string") return v.url;
  return richTextOf(v.elements);
}

function pieces(block: unknown): string[] {
  if (!isObj(block)) return [];
  switch (block.type) {
    case "header":
    case "markdown": {
      const t = textOf(block.text);
      return t ? [t] : [];
    }
    case "section": {
      const out: string[] = [];
      const t = textOf(block.text);
      if (t) out.push(t);
      if (Array.isArray(block.fields)) {
        const f = block.fields.map(textOf).filter((x): x is string => !!x);
        if (f.length) out.push(f.join(" | "));
      }
      return out;
    }
    case "context": {
      const els = Array.isArray(block.elements) ? block.elements : [];
      const t = els.map(textOf).filter((x): x is string => !!x);
      return t.length ? [t.join(" · ")] : [];
    }
    case "actions": {
      const els = Array.isArray(block.elements) ? block.elements : [];
      const labels = els.map((e) => (isObj(e) ? textOf(e.text) : undefined)).filter((x): x is string => !!x);
      return labels.length ? [`[${labels.join("] [")}]`] : [];
    }
    case "rich_text": {
      const t = richTextOf(block.elements);
      return t ? [t] : [];
    }
    default:
      return [];
  }
}

/**
 * One readable line for a message: header and section texts, context and buttons, flattened
 * and joined with " / " (falls back to the message's `text` when it has no blocks).
 */
export function flattenBlocks(blocks: unknown[] | undefined, text?: string): string {
  const parts = (blocks ?? []).flatMap(pieces).map(clean).filter(Boolean);
  if (parts.length) return parts.join(" / ");
  return clean(text ?? "");
}
