import { readTimeRange } from "../src/ask/time-range.js";
const now = Date.parse("2025-11-26T15:00:00Z");
const tz = process.argv[2] ?? "America/New_York";
for (const p of ["pricing this week", "today", "last 30 days", "since Monday", "last month", "and last month?", "yesterday", "since 9am", "in October", "Nov 3", "between Nov 1 and Nov 10", "from Nov 1 to Nov 10", "2 weeks ago", "tomorrow", "next week", "this morning", "unanswered in Saturday Rides", "since Monday last month", "this month", "this year", "last year", "last 24 hours", "in March", "before Monday", "past month", "last quarter"]) {
  const r = readTimeRange(p, { now, timeZone: tz });
  if (r.kind === "range") console.log(p.padEnd(30), "|", r.range.label, "| prev", r.range.previousLabel, "|", new Date(r.range.from).toISOString(), new Date(r.range.to).toISOString(), "| prev", new Date(r.range.previous.from).toISOString(), new Date(r.range.previous.to).toISOString(), JSON.stringify(r.spans), JSON.stringify(r.range.words));
  else console.log(p.padEnd(30), "|", JSON.stringify(r));
}
