import { createHash } from "node:crypto";
import { stringify } from "safe-stable-stringify";
import { readKeywords, type Thread } from "../insight/schemas.js";

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);

/**
 * A short hash of what an enrichment changes in a thread: title, summary, sentiment, keywords
 * and the question fields. Counts and dates are left out on purpose: a new message moves them
 * without any re-enrichment, and the webhook side does not edit a digest for that either.
 */
export function enrichmentFingerprint(t: Thread): string {
  const fields = {
    title: text(t.title),
    summary: text(t.summary),
    sentiment: text(t.sentiment),
    keywords: readKeywords(t),
    isQuestionLed: typeof t.isQuestionLed === "boolean" ? t.isQuestionLed : null,
    questionResponseStatus: text(t.questionResponseStatus),
  };
  return createHash("sha256")
    .update(stringify(fields) ?? "")
    .digest("hex")
    .slice(0, 16);
}

const ms = (iso: string | undefined) => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? undefined : t;
};

/** When the thread began (its first message), else its last activity; undefined if neither parses. */
export function threadStartMs(t: Thread): number | undefined {
  return ms(t.firstMessageDate) ?? ms(t.lastMessageDate);
}

/** The thread's last activity, else its start; undefined if neither parses. */
export function threadLastActivityMs(t: Thread): number | undefined {
  return ms(t.lastMessageDate) ?? ms(t.firstMessageDate);
}
