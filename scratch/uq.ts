import { understandQuestion } from "../src/ask/understand-question.js";
const now = Date.parse("2025-11-26T15:00:00Z");
const qs = [
 "what are people saying about pricing this week?",
 "which questions are still unanswered in the Lumen DB group?",
 "is the new release going down badly?",
 "what are people unhappy about this week in Lumen DB Support?",
 "unanswered questions in Lumen DB Support",
 "and last month?",
 "<@U0BOT> what are people angry about since Monday?",
 "hi", "help", "thanks!", "what's happening?", "", "who is the most active member?", "subscribe me to Lumen DB Support",
 "happy or unhappy about pricing?", "what happened 2 weeks ago", "complaints about sync in the mobile app today",
 "any questions about \"Saturday\" in Saturday Rides last 30 days", "unanswered questions in <#C0SUPPORT|support>",
 "how do people feel about the new pricing?", "open questions since 9am", "not happy with the docs lately",
 "pricing", "group Saturday Rides", "what will people think of v2", "what are people saying in the Pocketbook Android Beta group about crashes",
];
for (const q of qs) {
  const r = understandQuestion(q, { now, timeZone: "Europe/Berlin" });
  if (r.ok) { const u = r.understood; console.log(JSON.stringify(q), "=>", u.range.label, u.rangeSource, "| tone", u.tone, "| unans", u.unanswered, "q", u.questionsOnly, "| topic", JSON.stringify(u.topic), "| groups", JSON.stringify(u.groupRefs), u.channelId ?? ""); }
  else console.log(JSON.stringify(q), "=>", r.kind, "|", r.reply.split("\n")[0]);
}
