import * as z from "zod";
import { decodeState } from "../slack/button-values.js";
import { LIMITS } from "../slack/render/limits.js";
import type { AskQuestion } from "./types.js";

/*
 * "Show more" carries the question it answers (groups, period, filters, topic) and where the
 * next cards start, so any web process answers the press from the (briefly cached) listings
 * without a session. Decoded with a schema: a stale or foreign value is refused.
 */

const NAME_MAX = 40;
const id = z.string().min(1).max(100);
const ms = z.number().int();

export const moreStateSchema = z.object({
  g: z
    .array(z.tuple([id, z.string().max(NAME_MAX)]))
    .min(1)
    .max(20),
  s: z.enum(["named", "channel", "workspace", "kept"]),
  c: z
    .string()
    .regex(/^[CG][A-Z0-9]+$/)
    .optional(),
  r: z.tuple([ms, ms, ms, ms]),
  l: z.tuple([z.string().max(80), z.string().max(80)]),
  tn: z.enum(["positive", "neutral", "mixed", "negative"]).optional(),
  u: z.boolean().optional(),
  q: z.boolean().optional(),
  tp: z.string().max(200).optional(),
  o: z.number().int().min(0).max(10_000),
});
export type MoreState = z.infer<typeof moreStateSchema>;

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** The question and the offset of the next cards, within a button value's 2,000 characters. */
export function encodeMore(q: AskQuestion, offset: number): string | undefined {
  const state: MoreState = {
    g: q.groups.slice(0, 20).map((g) => [g.id, cut(g.name, NAME_MAX)]),
    s: q.scope,
    ...(q.scopeChannelId ? { c: q.scopeChannelId } : {}),
    r: [q.range.from, q.range.to, q.range.previous.from, q.range.previous.to],
    l: [cut(q.range.label, 80), cut(q.range.previousLabel, 80)],
    ...(q.tone ? { tn: q.tone } : {}),
    ...(q.unanswered ? { u: true } : {}),
    ...(q.questionsOnly ? { q: true } : {}),
    ...(q.topic ? { tp: cut(q.topic, 200) } : {}),
    o: offset,
  };
  const json = JSON.stringify(state);
  return json.length <= LIMITS.buttonValue ? json : undefined;
}

export function decodeMore(raw: string | undefined): { question: AskQuestion; offset: number } | undefined {
  const s = decodeState(moreStateSchema, raw);
  if (!s) return undefined;
  const [from, to, pFrom, pTo] = s.r;
  return {
    offset: s.o,
    question: {
      groups: s.g.map(([gid, name]) => ({ id: gid, name })),
      scope: s.s,
      ...(s.c ? { scopeChannelId: s.c } : {}),
      range: {
        from,
        to,
        previous: { from: pFrom, to: pTo },
        label: s.l[0],
        previousLabel: s.l[1],
        words: "",
      },
      ...(s.tn ? { tone: s.tn } : {}),
      unanswered: s.u === true,
      questionsOnly: s.q === true,
      ...(s.tp ? { topic: s.tp } : {}),
    },
  };
}
