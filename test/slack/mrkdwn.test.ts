import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  escapeAndTruncate,
  escapeMrkdwn,
  plainText,
  truncate,
  truncateMrkdwn,
} from "../../src/slack/mrkdwn.js";

const ZWJ = "\u200D";
/** What Slack would turn into a mention, a channel link or a disguised link. */
const LIVE = /<[!@#]|<https?:|<mailto:|&(?!amp;|lt;|gt;)/i;

const INJECTIONS = [
  "<!channel>",
  "<!here>",
  "<!everyone>",
  "<@U123ABC>",
  "<#C123>",
  "<#C123|general>",
  "<!subteam^S0614TZR7|@support>",
  "<https://evil.example|docs>",
  "<http://evil.example>",
  "<mailto:a@b|x>",
  "<!date^1392734382^{date}|Feb 18>",
];

/** Every `&` in an escaped string starts one of Slack's three entities. */
const wellFormedEntities = (s: string) => !/&(?!amp;|lt;|gt;)/.test(s);
const noSplitSurrogate = (s: string) =>
  !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("escapeMrkdwn", () => {
  it.each(INJECTIONS)("makes %s inert and keeps it readable", (attack) => {
    const out = escapeMrkdwn(`hi ${attack} there`);
    expect(out).not.toMatch(/[<>]/);
    expect(out).not.toMatch(LIVE);
    expect(out).toContain(attack.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"));
  });

  it("escapes exactly the three characters Slack reserves", () => {
    expect(escapeMrkdwn("Tom & Jerry > 3 < 4")).toBe("Tom &amp; Jerry &gt; 3 &lt; 4");
    expect(escapeMrkdwn("*bold* _it_ ~s~ `code`")).toBe("*bold* _it_ ~s~ `code`");
  });

  it("keeps already-escaped text visible as typed", () => {
    // The reader must see "&lt;!channel&gt;", i.e. Slack must receive "&amp;lt;…".
    expect(escapeMrkdwn("&lt;!channel&gt; &amp;")).toBe("&amp;lt;!channel&amp;gt; &amp;amp;");
  });

  it("puts an invisible joiner after the @ of bare broadcast words", () => {
    expect(escapeMrkdwn("@channel @here @everyone @Here")).toBe(
      `@${ZWJ}channel @${ZWJ}here @${ZWJ}everyone @${ZWJ}Here`,
    );
    expect(escapeMrkdwn("mail me@example.com or @alice")).toBe("mail me@example.com or @alice");
  });

  it("never lets any string form a live token (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("<", ">", "&", "!", "@", "#", "h", "|", "a", " ") }),
        (s) => {
          const out = escapeMrkdwn(s);
          expect(out).not.toMatch(/[<>]/);
          expect(wellFormedEntities(out)).toBe(true);
        },
      ),
    );
  });
});

describe("truncate", () => {
  it("returns short text unchanged", () => {
    expect(truncate("short", 10)).toBe("short");
    expect(truncate("exactly10!", 10)).toBe("exactly10!");
  });

  it("cuts at a nearby word boundary and appends an ellipsis", () => {
    expect(truncate("The payments team shipped a fix overnight", 25)).toBe("The payments team…");
  });

  it("cuts mid-word when no space is near", () => {
    const out = truncate("a".repeat(100), 10);
    expect(out).toBe(`${"a".repeat(9)}…`);
  });

  it("never splits a surrogate pair or an emoji made of several code points", () => {
    expect(truncate("ab😀😀😀", 5)).toBe("ab😀…");
    expect(truncate("ab😀😀😀", 4)).toBe("ab…"); // "ab" + the high half would fit, but not whole
    expect(truncate("x👨‍👩‍👧y", 5)).toBe("x…");
  });

  it("never leaves half an entity", () => {
    expect(truncate("abc &amp; def", 8)).toBe("abc…");
    expect(truncate("abcdefg&amp;", 10)).toBe("abcdefg…");
    expect(truncate("abcde&lt;x", 8)).toBe("abcde…");
  });

  it("handles tiny and empty limits", () => {
    expect(truncate("hello", 0)).toBe("");
    expect(truncate("hello", 1)).toBe("…");
    expect(truncate("", 5)).toBe("");
  });

  it("stays within max and keeps surrogates whole (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 80 }),
        fc.integer({ min: 0, max: 60 }),
        (s, max) => {
          const out = truncate(s, max);
          expect(out.length).toBeLessThanOrEqual(Math.max(max, 0));
          expect(noSplitSurrogate(out)).toBe(true);
          if (s.length <= max) expect(out).toBe(s);
        },
      ),
    );
  });
});

describe("escapeAndTruncate", () => {
  it("guarantees the escaped result fits", () => {
    const out = escapeAndTruncate("a&b&c&d&e&f&g", 10);
    expect(out.length).toBeLessThanOrEqual(10);
    expect(out).toBe("a&amp;b…");
  });

  it("returns the escaped text whole when it fits", () => {
    expect(escapeAndTruncate("<b>", 20)).toBe("&lt;b&gt;");
  });

  it("shortens text whose escaped form outgrows max even when the raw text fits", () => {
    const out = escapeAndTruncate("<<<<<<<<", 10);
    expect(out).toBe("&lt;&lt;…");
  });

  it("keeps entities whole, surrogates paired and the length within max (property)", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom("<", ">", "&", "@", "here", "😀", "é", " ", "x", "amp;"),
          maxLength: 200,
        }),
        fc.integer({ min: 1, max: 120 }),
        (s, max) => {
          const out = escapeAndTruncate(s, max);
          expect(out.length).toBeLessThanOrEqual(max);
          expect(wellFormedEntities(out)).toBe(true);
          expect(noSplitSurrogate(out)).toBe(true);
          expect(out).not.toMatch(/[<>]/);
        },
      ),
    );
  });

  it("handles a 50k-character summary", () => {
    const out = escapeAndTruncate("<!here> & ".repeat(5000), 3000);
    expect(out.length).toBeLessThanOrEqual(3000);
    expect(out.length).toBeGreaterThan(2900);
    expect(out.endsWith("…")).toBe(true);
    expect(out).not.toMatch(LIVE);
  });
});

describe("plainText", () => {
  it("keeps & visible, collapses whitespace and neutralises would-be tokens", () => {
    expect(plainText("  Tom &\n Jerry  ", 50)).toBe("Tom & Jerry");
    const out = plainText("<!channel> hi <@U1> @here", 50);
    expect(out).not.toMatch(/<[!@#]/);
    expect(out.replaceAll(ZWJ, "")).toBe("<!channel> hi <@U1> @here");
  });

  it("truncates to max, counting the joiners", () => {
    const out = plainText("<".repeat(300), 150);
    expect(out.length).toBeLessThanOrEqual(150);
    expect(out).not.toMatch(/<(?!\u200D)/);
    expect(plainText("T".repeat(300), 150)).toBe(`${"T".repeat(149)}…`);
  });

  it("is idempotent, so re-trimming does not double the joiners", () => {
    const once = plainText("a <!here> b", 50);
    expect(plainText(once, 50)).toBe(once);
  });
});

describe("truncateMrkdwn", () => {
  it("does not cut one of our own links or an entity in half", () => {
    expect(truncateMrkdwn("see <https://example.com/a/very/long/path|the thread> now", 30)).toBe("see…");
    expect(truncateMrkdwn("Tom &amp; Jerry", 8)).toBe("Tom…");
  });
});
