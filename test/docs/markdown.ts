import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The repository's root. */
export const ROOT = join(import.meta.dirname, "..", "..");

/** The pages a reader is sent to: the front door, docs/ and the benchmarks' page. */
export function docPages(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join("docs", f));
  return ["README.md", "bench/README.md", ...docs].sort();
}

export const readPage = (page: string): string => readFileSync(join(ROOT, page), "utf8");

/** The text outside fenced code blocks and inline code: what Markdown renders as links. */
export function prose(md: string): string {
  return md.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Every inline link and image target of a page (`[text](target)`, `![alt](target)`), in order. */
export function linksOf(md: string): string[] {
  return [...prose(md).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? "");
}

/**
 * A heading's anchor as GitHub makes it: lower case, punctuation dropped (letters, digits,
 * spaces, `-` and `_` kept), spaces to hyphens; a repeated anchor gets `-1`, `-2`...
 */
export function anchorsOf(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (m[1] ?? "")
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}
