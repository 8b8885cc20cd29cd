/** Output of the demo: plain text, indented, readable in any terminal. */
export interface Printer {
  line(text?: string): void;
  step(n: number, total: number, title: string): void;
  /** A line the stand-in Slack printed (one post, edit, file or reply), laid out on a few lines. */
  slack(raw: string): void;
  note(text: string): void;
}

const MAX_PARTS = 10;
const MAX_WIDTH = 150;

const clip = (s: string, n = MAX_WIDTH) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Shows mrkdwn as Slack displays it: a date token as its fallback (the demo has no reader's
 * zone), and the three escapes as literal text (never live mentions).
 */
const shownAsInSlack = (s: string) =>
  s
    .replace(/<!date\^\d+\^[^|>]*\|([^>]*)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** `#C0 ← [post] a / b` or `response id ← [ephemeral] a / b` -> where, what, parts. */
export function parseStandInLine(raw: string): { where: string; what: string; parts: string[] } {
  const m = /^(.*?) ← \[(.*?)\] ?(.*)$/s.exec(raw);
  if (!m) return { where: "", what: "", parts: [raw] };
  const parts = (m[3] ?? "")
    .split(" / ")
    .map((p) => p.trim())
    .filter(Boolean);
  return { where: m[1] ?? "", what: m[2] ?? "", parts };
}

export function describeStandIn(raw: string, channelNames: Record<string, string>): string[] {
  const { where, what, parts } = parseStandInLine(raw);
  let head: string;
  if (where.startsWith("response ")) {
    head = what.startsWith("in_channel") ? "reply, shared in the channel:" : "reply only you can see:";
  } else {
    const name = channelNames[where.slice(1)] ?? where;
    const kind = what.split(" ")[0] ?? what;
    const label: Record<string, string> = {
      post: "new message in",
      update: "message edited in",
      reply: "thread reply in",
      file: "file shared in",
      ephemeral: "ephemeral message in",
    };
    head = `${label[kind] ?? kind} ${name}:${kind === "file" ? ` ${what.slice(5)}` : ""}`;
  }
  const shown = parts.slice(0, MAX_PARTS).map((p) => `          ${clip(shownAsInSlack(p))}`);
  if (parts.length > MAX_PARTS) shown.push(`          … ${parts.length - MAX_PARTS} more parts`);
  return [`  slack > ${head}`, ...shown];
}

export function createPrinter(write: (s: string) => void, channelNames: Record<string, string>): Printer {
  return {
    line: (text = "") => write(`${text}\n`),
    step(n, total, title) {
      write(`\n[${n}/${total}] ${title}\n`);
    },
    slack(raw) {
      for (const l of describeStandIn(raw, channelNames)) write(`${l}\n`);
    },
    note(text) {
      write(`  ${text}\n`);
    },
  };
}
