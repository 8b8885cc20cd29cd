import { describe, expect, it } from "vitest";
import { EMOJI, plural, slackDate } from "../../../src/slack/render/wording.js";

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

  it("writes dates for Slack to localise, with a plain UTC fallback", () => {
    const at = Date.UTC(2026, 10, 23, 9, 5, 42);
    expect(slackDate(at)).toBe(
      `<!date^${Math.floor(at / 1000)}^{date_short_pretty} at {time}|2026-11-23 09:05 UTC>`,
    );
    expect(slackDate(new Date(at), "{date_short}")).toMatch(/^<!date\^\d+\^\{date_short\}\|/);
  });
});
