import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { STATUS_EMOJI, TONE_EMOJI } from "../../../src/domain/sentiment.js";
import { EMOJI, plural, readerDate, slackDate } from "../../../src/slack/render/wording.js";

describe("wording", () => {
  it("pluralises by count, with irregular plurals and thousands separators", () => {
    expect(plural(1, "message")).toBe("1 message");
    expect(plural(0, "message")).toBe("0 messages");
    expect(plural(2, "reply", "replies")).toBe("2 replies");
    expect(plural(1204, "thread")).toBe("1,204 threads");
  });

  it("gives each emoji one meaning", () => {
    const values = Object.values(EMOJI);
    expect(new Set(values).size).toBe(values.length);
  });

  it("keeps a check that passed apart from an answered question, and sentiment's circles apart from both", () => {
    // The question statuses share the card's signs for the same meanings, and no other.
    expect(STATUS_EMOJI.answered).toBe(EMOJI.answered);
    expect(STATUS_EMOJI.pending).toBe(EMOJI.awaitingAnswer);
    expect(EMOJI.ok).not.toBe(EMOJI.answered);
    const shared = new Set<string>([EMOJI.answered, EMOJI.awaitingAnswer]);
    const elsewhere = [...Object.values(TONE_EMOJI), ...Object.values(STATUS_EMOJI)];
    for (const e of Object.values(EMOJI).filter((v) => !shared.has(v))) expect(elsewhere).not.toContain(e);
  });

  it("is the only place a sign is written: no other source file spells one out", () => {
    const vocabulary = new Set<string>([
      ...Object.values(EMOJI),
      ...Object.values(TONE_EMOJI),
      ...Object.values(STATUS_EMOJI),
    ]);
    const owners = new Set(["slack/render/wording.ts", "domain/sentiment.ts"]);
    const src = new URL("../../../src/", import.meta.url);
    const spelled: string[] = [];
    for (const file of readdirSync(src, { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts") || owners.has(file)) continue;
      const text = readFileSync(new URL(file, src), "utf8");
      for (const e of vocabulary) if (text.includes(e)) spelled.push(`${file}: ${e}`);
    }
    expect(spelled).toEqual([]);
  });

  it("has every sign explained in the legend of docs/using.md", () => {
    const page = readFileSync(new URL("../../../docs/using.md", import.meta.url), "utf8");
    const from = page.indexOf("### What the signs mean");
    const legend = page.slice(from, page.indexOf("\n## ", from));
    expect(legend).toContain("| sign");
    const signs = [...Object.values(EMOJI), ...Object.values(TONE_EMOJI), ...Object.values(STATUS_EMOJI)];
    for (const e of new Set(signs)) expect(legend, e).toContain(`\`${e}\``);
  });

  it("writes dates for Slack to localise, with a plain UTC fallback", () => {
    const at = Date.UTC(2026, 10, 23, 9, 5, 42);
    expect(slackDate(at)).toBe(
      `<!date^${Math.floor(at / 1000)}^{date_short_pretty} at {time}|2026-11-23 09:05 UTC>`,
    );
    // A format without a time falls back to the date alone.
    expect(slackDate(new Date(at), "{date_short}")).toBe(
      `<!date^${Math.floor(at / 1000)}^{date_short}|2026-11-23>`,
    );
  });

  it("writes ISO dates for Slack to localise, and shows one that does not parse as escaped text", () => {
    expect(readerDate("2025-03-05T07:08:00.000Z")).toBe(
      "<!date^1741158480^{date_short_pretty} at {time}|2025-03-05 07:08 UTC>",
    );
    expect(readerDate("2024-12-31T23:59:59.000Z", "{date_short}")).toBe(
      "<!date^1735689599^{date_short}|2024-12-31>",
    );
    expect(readerDate("yesterday <!here>")).toBe("yesterday &lt;!here&gt;");
  });
});
