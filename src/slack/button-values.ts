import * as z from "zod";
import { RANGES, type Range } from "../insight/schemas.js";
import { LIMITS } from "./render/limits.js";

/*
 * Button values and modal metadata carry the state of a listing (which group, range, page)
 * as short JSON, so any web process can answer any click without server-side sessions.
 * Every value is decoded with a schema: a stale or foreign value is refused, never trusted.
 */

/** Groups a threads listing can step through; a name is cut to this many characters. */
export const MAX_STATE_GROUPS = 20;
const STATE_NAME_MAX = 40;

const range = z.enum(RANGES);
const page = z.number().int().min(1).max(100_000);
const id = z.string().min(1).max(100);

/** A listing's filters (the options of `subscribe`), carried so that every page applies them. */
const listingFiltersSchema = z.object({
  sentiments: z.array(z.string().max(20)).max(8).optional(),
  excludeSentiments: z.array(z.string().max(20)).max(8).optional(),
  questions: z.boolean().optional(),
  unanswered: z.boolean().optional(),
  minMessages: z.number().int().min(1).optional(),
  minParticipants: z.number().int().min(1).optional(),
  keywords: z.array(z.string().max(100)).max(20).optional(),
  excludeKeywords: z.array(z.string().max(100)).max(20).optional(),
});

export const threadsStateSchema = z
  .object({
    r: range,
    /** Filters of `threads … --sentiment …`; absent: every thread. */
    f: listingFiltersSchema.optional(),
    p: page,
    /** Index of the current group in `g`. */
    i: z.number().int().min(0),
    /** [id, name] of each group the listing steps through. */
    g: z
      .array(z.tuple([id, z.string().max(STATE_NAME_MAX)]))
      .min(1)
      .max(MAX_STATE_GROUPS),
  })
  .refine((s) => s.i < s.g.length, { message: "group index out of range" });
export type ThreadsState = z.infer<typeof threadsStateSchema>;

export const threadRefSchema = z.object({
  g: id,
  t: id,
  /** The thread's title, for the modal's header until the messages arrive. */
  n: z.string().max(200),
  p: page.default(1),
});
export type ThreadRef = z.infer<typeof threadRefSchema>;

export const shareStateSchema = z.object({
  k: z.enum(["thread", "message"]),
  /** Group name. */
  gn: z.string().max(200),
  /** Thread title (thread hits) or the title of the message's thread. */
  ti: z.string().max(300).optional(),
  /** Summary or message text, already cut. */
  tx: z.string().max(2000),
  a: z.string().max(200).optional(),
  d: z.string().max(60).optional(),
});
export type ShareState = z.infer<typeof shareStateSchema>;

/** The thread a card's actions act on, carried in its actions block's block_id (users_select has no value). */
export const cardThreadSchema = z.object({ g: id, t: id });
export type CardThread = z.infer<typeof cardThreadSchema>;

/** What the handled button asks for: the state the card showed when it was pressed. */
export const handledIntentSchema = z.enum(["handle", "reopen"]);
export type HandledIntent = z.infer<typeof handledIntentSchema>;

/** `digest.card:{"g":…,"t":…}`: ids are at most 100 characters each, so it stays within 255. */
export function encodeCardBlockId(prefix: string, c: CardThread): string {
  return `${prefix}:${JSON.stringify({ g: c.g, t: c.t })}`;
}

export function decodeCardBlockId(prefix: string, blockId: string | undefined): CardThread | undefined {
  if (!blockId?.startsWith(`${prefix}:`)) return undefined;
  return decodeState(cardThreadSchema, blockId.slice(prefix.length + 1));
}

export const resumeStateSchema = z.object({ c: id, g: id });
export type ResumeState = z.infer<typeof resumeStateSchema>;

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** A threads state as a button value, always within Slack's 2,000-character limit. */
export function encodeThreadsState(s: {
  r: Range;
  f?: ThreadsState["f"];
  p: number;
  i: number;
  g: ReadonlyArray<readonly [string, string]>;
}): string {
  let groups = s.g
    .slice(0, MAX_STATE_GROUPS)
    .map(([gid, name]) => [gid, cut(name, STATE_NAME_MAX)] as [string, string]);
  let i = Math.max(0, Math.min(s.i, groups.length - 1));
  const json = () => JSON.stringify({ r: s.r, ...(s.f ? { f: s.f } : {}), p: s.p, i, g: groups });
  if (json().length <= LIMITS.buttonValue) return json();
  // Names are only labels: drop them before dropping any group.
  groups = groups.map(([gid]) => [gid, ""]);
  // Still too long (very long ids): keep the current group and as many neighbours as fit.
  while (json().length > LIMITS.buttonValue && groups.length > 1) {
    if (groups.length - 1 > i) groups.pop();
    else {
      groups.shift();
      i--;
    }
  }
  return json();
}

export function encodeThreadRef(r: { g: string; t: string; n: string; p?: number }): string {
  return JSON.stringify({ g: r.g, t: r.t, n: cut(r.n, 80), p: r.p ?? 1 });
}

/** A share value within the limit: the text is shortened until the JSON fits. */
export function encodeShareState(s: ShareState): string {
  const base: ShareState = {
    ...s,
    gn: cut(s.gn, 100),
    ...(s.ti !== undefined ? { ti: cut(s.ti, 150) } : {}),
    ...(s.a !== undefined ? { a: cut(s.a, 80) } : {}),
  };
  let max = Math.min(s.tx.length, 900);
  for (;;) {
    const json = JSON.stringify({ ...base, tx: cut(s.tx, max) });
    if (json.length <= LIMITS.buttonValue || max <= 20) return json;
    max = Math.floor(max * 0.8);
  }
}

export function encodeResumeState(s: ResumeState): string {
  return JSON.stringify(s);
}

/** Parses a value against its schema; undefined for anything else. */
export function decodeState<S extends z.ZodType>(schema: S, raw: string | undefined): z.infer<S> | undefined {
  if (!raw) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
