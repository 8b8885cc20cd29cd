import * as chrono from "chrono-node";
const now = new Date("2025-11-24T15:00:00Z"); // a Monday
const phrases = ["what may be causing crashes", "second login failure", "issues now", "release 1.2.3 bugs", "v2 upgrade", "the 1st release", "since Monday", "Monday", "Friday", "last Friday", "this friday", "in 2 days", "the past week", "last two weeks", "from Nov 1 to Nov 10", "Nov 1 - Nov 10", "since 9am", "since 9am today", "in March", "March 2025", "sat rides", "saturday rides", "sun issues", "last quarter", "past month", "the last month", "last 24 hours", "past hour", "this morning", "tonight", "last night", "10 days", "2024", "in 2024"];
for (const p of phrases) {
  const r = chrono.parse(p, { instant: now, timezone: 60 });
  console.log(JSON.stringify(p), "=>", JSON.stringify(r.map(x => ({ text: x.text, i: x.index, s: x.start.date().toISOString(), known: ["year","month","day","weekday","hour"].filter(c => x.start.isCertain(c as never)), e: x.end?.date().toISOString(), y: x.start.get("year"), m: x.start.get("month"), d: x.start.get("day") }))));
}
