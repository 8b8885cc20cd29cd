/**
 * Splits command text into words, keeping "quoted phrases" together. Slack sends smart
 * quotes from some clients, so those count as quotes too.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|“([^”]*)”|'([^']*)'|(\S+)/g;
  for (const m of text.matchAll(re)) {
    const word = m[1] ?? m[2] ?? m[3] ?? m[4] ?? "";
    if (word !== "") out.push(word);
  }
  return out;
}

/** The first word (lower-cased) and what follows it, as typed. */
export function splitSubcommand(text: string): { name: string; rest: string } {
  const trimmed = text.trim();
  const m = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  return m ? { name: (m[1] ?? "").toLowerCase(), rest: m[2] ?? "" } : { name: "", rest: "" };
}
