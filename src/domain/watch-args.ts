import { describeFilters, hasFilters, normalizeFilters, type SubscriptionFilters } from "./filters.js";
import {
  clockInWindow,
  formatClockTime,
  formatQuietWindow,
  parseClockTime,
  parseQuietWindow,
  type ClockMinutes,
  type QuietWindow,
} from "./local-time.js";
import { isFlagToken, parseSubscriptionOptions } from "./subscription-options.js";
import { describeWords, MAX_WATCH_WORD_LENGTH, MAX_WATCH_WORDS } from "./watch.js";

/*
 * The words after `watch`: `<words> [--group <group>] [filters] [--daily HH:MM] [--quiet
 * HH:MM-HH:MM]`. The filters are `subscribe`'s, read by its own parser (one grammar, rule 13);
 * this module only takes out what is the watch's own. Pure.
 */

export type WatchArgs =
  | { kind: "list" }
  | { kind: "off"; which: "all" | number }
  | {
      kind: "add";
      words: string[];
      /** The group as typed; resolved by the command. */
      groupRef: string | undefined;
      filters: SubscriptionFilters;
      daily: ClockMinutes | undefined;
      quiet: QuietWindow | undefined;
    }
  | {
      kind: "error";
      /** One sentence about the first thing that could not be read. */
      error: string;
      /** What was read before it, in words, or "". */
      understood: string;
    };

export const WATCH_USAGE = "watch <words> [--group <group>] [filters] [--daily HH:MM] [--quiet HH:MM-HH:MM]";
export const WATCH_EXAMPLE =
  "/insight watch refund failed --group Lumen DB Support --sentiment negative --quiet 22:00-07:00";

const GROUP_FLAGS = new Set(["--group", "-g", "--in"]);

/** `--flag=value` or `--flag` (en/em dashes from macOS and iOS clients too). */
function own(token: string): { flag: string; inline: string | undefined } | undefined {
  const m = /^(?:--|[\u2013\u2014]-?|-)([a-z][a-z-]*)(?:=(.*))?$/i.exec(token);
  if (!m?.[1]) return undefined;
  const flag = `--${m[1].toLowerCase()}`;
  const name = flag === "--g" ? "--group" : flag;
  if (!GROUP_FLAGS.has(name) && name !== "--daily" && name !== "--quiet") return undefined;
  return { flag: name === "--in" ? "--group" : name, inline: m[2] };
}

/** What was read, in words, for "understood so far". */
function understoodOf(o: {
  words: string[];
  groupRef?: string | undefined;
  filters?: SubscriptionFilters;
  daily?: ClockMinutes | undefined;
  quiet?: QuietWindow | undefined;
}): string {
  return [
    o.words.length > 0 ? `words ${describeWords(o.words)}` : "",
    o.groupRef ? `group "${o.groupRef}"` : "",
    o.filters && hasFilters(o.filters) ? describeFilters(o.filters) : "",
    o.daily !== undefined ? `daily at ${formatClockTime(o.daily)}` : "",
    o.quiet ? `quiet ${formatQuietWindow(o.quiet)}` : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

/** Reads `watch`'s arguments (words as the tokenizer split them, quoted phrases kept). */
export function parseWatchArgs(args: readonly string[]): WatchArgs {
  const first = args[0]?.toLowerCase();
  if (first === "list" && args.length === 1) return { kind: "list" };
  if (first === "off" || first === "remove") {
    const what = args.slice(1).join(" ").trim().toLowerCase();
    if (what === "all") return { kind: "off", which: "all" };
    const n = /^#?(\d{1,3})$/.exec(what);
    if (n) return { kind: "off", which: Number(n[1]) };
    return {
      kind: "error",
      error: what
        ? `"${what.slice(0, 40)}" is not a watch number: use the number \`/insight watch list\` shows, or all.`
        : "Say which watch to stop: its number in `/insight watch list`, or all.",
      understood: "",
    };
  }
  return parseWatchSpec(args);
}

/** A new watch's words and options (what `watch` reads when it is neither `list` nor `off`). */
export function parseWatchSpec(args: readonly string[]): Exclude<WatchArgs, { kind: "list" | "off" }> {
  const firstFlag = args.findIndex((t) => isFlagToken(t) || own(t) !== undefined);
  const words = (firstFlag === -1 ? [...args] : args.slice(0, firstFlag))
    .map((w) => w.trim())
    .filter(Boolean);
  const rest = firstFlag === -1 ? [] : args.slice(firstFlag);
  let groupRef: string | undefined;
  let daily: ClockMinutes | undefined;
  let quiet: QuietWindow | undefined;
  const forFilters: string[] = [];
  const fail = (error: string): Exclude<WatchArgs, { kind: "list" | "off" }> => ({
    kind: "error",
    error,
    understood: understoodOf({ words, groupRef, daily, quiet }),
  });

  if (words.length > MAX_WATCH_WORDS) {
    return fail(`A watch takes up to ${MAX_WATCH_WORDS} words; for any of several, use --keywords a,b.`);
  }
  if (words.some((w) => w.length > MAX_WATCH_WORD_LENGTH)) {
    return fail(`Each word can be at most ${MAX_WATCH_WORD_LENGTH} characters long.`);
  }

  for (let i = 0; i < rest.length;) {
    const token = rest[i] ?? "";
    const mine = own(token);
    i++;
    if (!mine) {
      forFilters.push(token);
      continue;
    }
    // The value: the `=value` and the words after it, up to the next option.
    const parts: string[] = mine.inline !== undefined ? [mine.inline] : [];
    while (i < rest.length && !isFlagToken(rest[i] ?? "") && !own(rest[i] ?? "")) parts.push(rest[i++] ?? "");
    const value = parts.join(" ").trim();
    if (mine.flag === "--group") {
      if (!value) return fail("Name the chat group after --group, like --group Lumen DB Support.");
      if (groupRef !== undefined) return fail("A watch covers one group, or every group: give --group once.");
      groupRef = value;
    } else if (mine.flag === "--daily") {
      const t = parseClockTime(value);
      if (t === undefined) {
        return fail(
          `--daily takes a time of day, like --daily 09:00${value ? ` (I read "${value.slice(0, 20)}")` : ""}.`,
        );
      }
      daily = t;
    } else {
      const q = parseQuietWindow(value);
      if (!q) {
        return fail(
          `--quiet takes two times, from and to, like --quiet 22:00-07:00${value ? ` (I read "${value.slice(0, 30)}")` : ""}.`,
        );
      }
      quiet = q;
    }
  }

  const parsed = parseSubscriptionOptions(forFilters, { filtersOnly: true });
  if (!parsed.ok) {
    return {
      kind: "error",
      // The option parser knows `subscribe`'s options; a watch has three more of its own.
      error: parsed.error.replace(
        /^(Unknown option "[^"]*"): use (.*)\.$/,
        "$1: a watch takes --group, --daily, --quiet and $2.",
      ),
      understood: [understoodOf({ words, groupRef, daily, quiet }), parsed.understood]
        .filter(Boolean)
        .join(" · "),
    };
  }
  const filters = normalizeFilters(parsed.change.filters);
  if (words.length === 0 && !groupRef && !hasFilters(filters)) {
    return {
      kind: "error",
      error: "Say what to watch for: some words, a group, or a filter.",
      understood: understoodOf({ words, groupRef, filters, daily, quiet }),
    };
  }
  if (daily !== undefined && quiet && clockInWindow(daily, quiet)) {
    return {
      kind: "error",
      error: `--daily ${formatClockTime(daily)} falls inside your quiet hours ${formatQuietWindow(quiet)}: pick a time outside them.`,
      understood: understoodOf({ words, groupRef, filters, daily, quiet }),
    };
  }
  return { kind: "add", words, groupRef, filters, daily, quiet };
}
