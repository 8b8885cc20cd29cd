import * as chrono from "chrono-node";
const now = new Date("2025-11-26T15:00:00Z");
const phrases = ["what are people saying about pricing this week?", "unanswered questions today", "last 30 days pricing", "since Monday", "last month", "and last month?", "yesterday", "last week", "in the past 2 weeks", "since Nov 3", "in October", "between Nov 1 and Nov 10", "this month", "past 3 days", "last 90 days", "over the last 7 days", "from last Tuesday", "2 weeks ago", "since yesterday", "this year", "Lumen DB support questions", "release 2.0 going down badly", "tomorrow", "next week"];
for (const p of phrases) {
  const r = chrono.parse(p, { instant: now, timezone: -300 });
  console.log(JSON.stringify(p), "=>", r.map(x => ({ text: x.text, index: x.index, start: x.start.date().toISOString(), startKnown: ["year","month","day","weekday","hour"].filter(c => x.start.isCertain(c as never)), end: x.end?.date().toISOString(), tags: [...x.tags()] })));
}
