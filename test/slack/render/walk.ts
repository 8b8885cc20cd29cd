import { expect } from "vitest";

/** Every string under a `text` key anywhere in a value (blocks, elements, fields, labels). */
export function allTexts(value: unknown): string[] {
  const out: string[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "text" && typeof x === "string") out.push(x);
        else visit(x);
      }
    }
  };
  visit(value);
  return out;
}

/** What Slack would turn into a mention, a channel or user link, or a (disguised) link. */
const LIVE = ["<!", "<@", "<#", "<http", "<mailto"];

/** Date tokens the renderers make themselves (wording.ts slackDate): a reader's own time, not community text. */
export const SLACK_DATE_TOKEN = /<!date\^\d+\^[^|<>]*\|[^<>]*>/g;

/**
 * The fallbacks of the date tokens in `text` (what notifications and old clients show), after
 * checking that no date is left as fixed UTC text outside a token.
 */
export function readerDateFallbacks(text: string): string[] {
  expect(text.replace(SLACK_DATE_TOKEN, ""), "a date outside a Slack date token").not.toMatch(
    /UTC|\d{2}:\d{2}/,
  );
  return [...text.matchAll(SLACK_DATE_TOKEN)].map((m) => m[0].slice(m[0].indexOf("|") + 1, -1));
}

export function expectNoLiveTokens(value: unknown): void {
  for (const raw of allTexts(value)) {
    const text = raw.replace(SLACK_DATE_TOKEN, "");
    for (const token of LIVE) expect(text.toLowerCase(), `"${text}" contains ${token}`).not.toContain(token);
  }
}

/** Every Block Kit limit our renderers must hold, checked on a built message. */
export function expectWithinLimits(blocks: unknown[]): void {
  expect(blocks.length).toBeLessThanOrEqual(50);
  expect(JSON.stringify(blocks).length).toBeLessThanOrEqual(12_000);
  for (const b of blocks as Array<Record<string, unknown>>) {
    const text = b.text as { text: string } | undefined;
    if (b.type === "header") expect(text?.text.length).toBeLessThanOrEqual(150);
    if (b.type === "section") {
      if (text) expect(text.text.length).toBeLessThanOrEqual(3000);
      const fields = (b.fields ?? []) as Array<{ text: string }>;
      expect(fields.length).toBeLessThanOrEqual(10);
      for (const f of fields) expect(f.text.length).toBeLessThanOrEqual(2000);
    }
    if (b.type === "context") {
      const elements = b.elements as Array<{ text?: string }>;
      expect(elements.length).toBeLessThanOrEqual(10);
      for (const e of elements) expect(e.text?.length ?? 0).toBeLessThanOrEqual(2000);
    }
    for (const t of allTexts(b)) expect(t.length).toBeGreaterThan(0);
  }
}
