import fc from "fast-check";

/** Pieces community text uses to try to reach past escaping, plus awkward Unicode. */
const HOSTILE = [
  "<!channel>",
  "<!here>",
  "<!everyone>",
  "<@U0123ABCD>",
  "<#C0123ABCD>",
  "<!subteam^S0123|@team>",
  "<https://evil.example|the docs>",
  "<mailto:x@evil.example|mail>",
  "<slack://open>",
  "@channel",
  "@here",
  "@everyone",
  "&lt;!channel&gt;",
  "&amp;",
  "&",
  "<",
  ">",
  "*bold*",
  "_it_",
  "~st~",
  "`code`",
  "```block```",
  "> quote",
  "\n",
  "\r\n",
  "\t",
  "\u200D",
  "\u202E",
  "\u0000",
  "👩‍👩‍👧‍👦",
  "🏳️‍🌈",
  "e\u0301\u0301\u0301",
  "\uD83D",
  ":smile:",
  "https://example.com/a?b=c&d=e",
];

/** Untrusted text: hostile fragments mixed with arbitrary Unicode, now and then very long. */
export const hostileText = (maxPieces = 12): fc.Arbitrary<string> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .array(fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: "grapheme", maxLength: 20 })), {
          maxLength: maxPieces,
        })
        .map((p) => p.join("")),
    },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...HOSTILE)
        .chain((h) =>
          fc.integer({ min: 1, max: 3000 }).map((n) => h.repeat(Math.ceil(n / h.length)).slice(0, n)),
        ),
    },
    { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 2_000, maxLength: 6_000 }) },
  );

export const isoDate = fc.oneof(
  fc
    .date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom("yesterday", "", "2026-13-45T99:99:99Z"),
);

/** A thread listing item as the service might send it (then parsed tolerantly). */
export const rawThread = fc.record(
  {
    id: fc.string({ minLength: 1, maxLength: 30 }),
    title: hostileText(),
    firstMessageDate: isoDate,
    lastMessageDate: isoDate,
    messageCount: fc.oneof(fc.nat(), fc.constant(-1), fc.double()),
    summary: fc.oneof(hostileText(30), fc.constant(null)),
    sentiment: fc.oneof(
      fc.constantFrom("positive", "negative", "neutral", "mixed", "0.7", "-1"),
      hostileText(3),
      fc.constant(null),
    ),
    isQuestionLed: fc.oneof(fc.boolean(), fc.constant("yes")),
    questionResponseStatus: fc.oneof(fc.constantFrom("answered", "unanswered", "pending"), hostileText(3)),
    keywords: fc.oneof(fc.array(hostileText(3), { maxLength: 60 }), hostileText(5)),
    participantCount: fc.oneof(fc.nat(), fc.string()),
  },
  { requiredKeys: ["id"] },
);
