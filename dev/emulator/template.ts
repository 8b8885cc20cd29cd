import type { Random } from "./random.js";
import type { ThreadTemplate } from "./seed-content.js";

export type Slots = Record<string, readonly string[]>;

/** One rendered template: every placeholder filled with the same choice throughout. */
export type RenderedTemplate = ThreadTemplate;

const PLACEHOLDER = /\{(\w+)\}/g;

/** Fills `{slot}` placeholders, choosing one value per slot for the whole template. */
export function renderTemplate(t: ThreadTemplate, slots: Slots, rng: Random): RenderedTemplate {
  const chosen = new Map<string, string>();
  const fill = (text: string) =>
    text.replace(PLACEHOLDER, (whole, name: string) => {
      const values = slots[name];
      if (!values || values.length === 0) return whole;
      let v = chosen.get(name);
      if (v === undefined) {
        v = rng.pick(values);
        chosen.set(name, v);
      }
      return v;
    });
  return {
    ...t,
    title: fill(t.title),
    summary: fill(t.summary),
    keywords: t.keywords.map(fill),
    opener: fill(t.opener),
    replies: t.replies.map(fill),
  };
}

/** Fills placeholders with fixed values (for one-off lines such as system messages). */
export function fillWith(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
