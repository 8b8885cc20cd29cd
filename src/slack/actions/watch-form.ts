import { normalizeFilters, type SubscriptionFilters } from "../../domain/filters.js";
import { formatClockTime, parseClockTime, type QuietWindow } from "../../domain/local-time.js";
import { parseWatchSpec } from "../../domain/watch-args.js";
import { tokenize } from "../commands/tokenize.js";
import { WATCH_FIELDS, WATCH_INPUT } from "../render/watch-modal.js";
import type { FormValues } from "./settings-submit.js";

/*
 * Reading the watch Edit modal with the command's own parsers (rule 13: what the form refuses,
 * `watch` refuses too, in the same words): each field goes through the parser on its own, so an
 * error lands inside the field it is about; then the whole watch is checked as the command
 * would check it. Pure.
 */

export type WatchFormResult =
  | {
      ok: true;
      words: string[];
      /** The group as typed ("" for every group); resolved by the caller when it changed. */
      groupRef: string;
      filters: SubscriptionFilters;
      daily: number | undefined;
      quiet: QuietWindow | undefined;
    }
  | { ok: false; errors: Record<string, string> };

const input = (v: FormValues, block: string) =>
  v[block]?.[WATCH_INPUT] as (FormValues[string][string] & { selected_time?: string | null }) | undefined;
const typed = (v: FormValues, block: string) => (input(v, block)?.value ?? "").trim();
const many = (v: FormValues, block: string) => (input(v, block)?.selected_options ?? []).map((o) => o.value);
const picked = (v: FormValues, block: string) => input(v, block)?.selected_option?.value;
const timeOf = (v: FormValues, block: string) => input(v, block)?.selected_time ?? undefined;

/**
 * One field as the command would read it: its flag and value, after a word (the whole is checked
 * later). Under its field the sentence goes without the flag's name, as in the settings form.
 */
function fieldError(flag: string, value: string): string | undefined {
  const r = parseWatchSpec(["field", flag, ...tokenize(value)]);
  return r.kind === "error" ? r.error.replace(`${flag}: `, "") : undefined;
}

export function readWatchForm(v: FormValues): WatchFormResult {
  const F = WATCH_FIELDS;
  const errors: Record<string, string> = {};
  const words = tokenize(typed(v, F.words));
  const wordsCheck = words.length > 0 ? parseWatchSpec(words) : undefined;
  if (wordsCheck?.kind === "error") errors[F.words] = wordsCheck.error;

  // Each filter field through the same parser as `--keywords`, `--min-messages`... on the command line.
  const filterFields: [string, string][] = [
    [F.keywords, "--keywords"],
    [F.excludeKeywords, "--exclude-keywords"],
    [F.minMessages, "--min-messages"],
    [F.minParticipants, "--min-participants"],
  ];
  const tokens: string[] = [];
  for (const [block, flag] of filterFields) {
    const value = typed(v, block);
    if (!value) continue;
    const err = fieldError(flag, value);
    if (err) errors[block] = err;
    else tokens.push(flag, ...tokenize(value));
  }
  const sentiments = many(v, F.sentiments);
  const excluded = many(v, F.excludeSentiments);
  if (sentiments.length > 0) tokens.push("--sentiment", sentiments.join(","));
  if (excluded.length > 0) tokens.push("--exclude-sentiment", excluded.join(","));
  const q = picked(v, F.questions);
  if (q === "questions") tokens.push("--questions");
  if (q === "unanswered") tokens.push("--unanswered");

  const daily = timeOf(v, F.daily);
  const from = timeOf(v, F.quietFrom);
  const to = timeOf(v, F.quietTo);
  const dailyAt = daily ? parseClockTime(daily) : undefined;
  if (daily && dailyAt === undefined) errors[F.daily] = "Pick a time of day, like 09:00.";
  if (dailyAt !== undefined) tokens.push("--daily", formatClockTime(dailyAt));
  if (Boolean(from) !== Boolean(to)) {
    errors[from ? F.quietTo : F.quietFrom] = "Quiet hours need both times: from and until.";
  } else if (from && to) {
    const err = fieldError("--quiet", `${from}-${to}`);
    if (err) errors[F.quietTo] = from === to ? "Quiet hours end at another time than they start." : err;
    else tokens.push("--quiet", `${from}-${to}`);
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

  // The whole watch, as the command checks it (a sentiment both wanted and excluded, a daily
  // time inside quiet hours, a watch on nothing). A group stands for itself here: it is resolved later.
  const groupRef = typed(v, F.group);
  const whole = parseWatchSpec([...words, ...(groupRef ? ["--group", groupRef] : []), ...tokens]);
  if (whole.kind === "error") {
    const field = /both wanted and excluded/.test(whole.error)
      ? F.excludeSentiments
      : /--daily/.test(whole.error)
        ? F.daily
        : F.words;
    return { ok: false, errors: { [field]: whole.error } };
  }
  return {
    ok: true,
    words: whole.words,
    groupRef,
    filters: normalizeFilters(whole.filters),
    daily: whole.daily,
    quiet: whole.quiet,
  };
}
