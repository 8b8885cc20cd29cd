import { threadSchema, type Thread } from "../../src/insight/schemas.js";
import { weekWindow } from "../../src/domain/weekly-window.js";

/** A run on Monday 2026-03-09 09:00 UTC: the week is Monday 2026-03-02 to Sunday 2026-03-08, UTC days. */
export const WINDOW = weekWindow(Date.parse("2026-03-09T09:00:00.000Z"), "UTC");

/** A listing item parsed through the real schema, as the worker sees it. */
export function thread(fields: Record<string, unknown>): Thread {
  return threadSchema.parse({ title: `Thread ${String(fields.id)}`, ...fields });
}

/**
 * Seven threads (one of them sent twice) whose counts are worked out by hand in the tests:
 * calendar days in UTC, so 03-03 08:59 is day 1 and 03-08 23:59 is still day 6.
 */
export const WEEK: Thread[] = [
  thread({
    id: "a",
    title: "Refund for a double charge",
    lastMessageDate: "2026-03-02T10:00:00.000Z",
    messageCount: 10,
    sentiment: "positive",
    keywords: ["Refund", "billing"],
    isQuestionLed: true,
    questionResponseStatus: "answered",
  }),
  thread({
    id: "b",
    title: "Dark mode resets after update",
    lastMessageDate: "2026-03-03T08:59:00.000Z",
    messageCount: 25,
    sentiment: "negative",
    keywords: ["refund", "Dark mode"],
    isQuestionLed: true,
    questionResponseStatus: "unanswered",
  }),
  thread({
    id: "c",
    title: "Welcome, new members",
    lastMessageDate: "2026-03-03T09:00:00.000Z",
    messageCount: 3,
    keywords: [],
    isQuestionLed: false,
  }),
  thread({
    id: "d",
    title: "Invoice PDF is blank",
    lastMessageDate: "2026-03-05T12:00:00.000Z",
    sentiment: "Mixed",
    keywords: ["billing", "billing"],
    isQuestionLed: true,
    questionResponseStatus: "pending",
  }),
  thread({
    id: "e",
    title: "App crashes on launch",
    lastMessageDate: "2026-03-08T23:59:00.000Z",
    messageCount: 25,
    sentiment: "very negative",
    keywords: ["dark mode"],
    isQuestionLed: true,
    questionResponseStatus: "partially answered",
  }),
  // "b" again, as sent twice when pages shifted while the listing was read.
  thread({
    id: "b",
    title: "Dark mode resets after update",
    lastMessageDate: "2026-03-03T08:59:00.000Z",
    messageCount: 25,
    sentiment: "negative",
    keywords: ["refund", "Dark mode"],
    isQuestionLed: true,
    questionResponseStatus: "unanswered",
  }),
  thread({
    id: "f",
    title: "Lost keys at the meetup",
    lastMessageDate: "2026-03-08T00:00:00.000Z",
    messageCount: 1,
    sentiment: "ecstatic",
    keywords: ["Refund"],
  }),
];
